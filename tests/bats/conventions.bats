#!/usr/bin/env bats
# Conventions every pf tool keeps (STYLE.md): -h/--help, --version, exit 2
# with one line and the synopsis on misuse, exit 3 on a missing input, and
# every long option of --help documented in the tool's man page.

load test_helper

# missing_input_args TOOL: arguments that make TOOL read a file that does
# not exist.  Each tool names its own way in.
missing_input_args() {
	case $1 in
	pf-fold|pf-svg) echo "/nonexistent/pf-input" ;;
	pf-classify|pf-precheck) echo "--proc-root /nonexistent/pf-proc" ;;
	pf-record|pf-offcpu) echo "-d 1 -o /nonexistent/dir/out.txt -- true" ;;
	*) return 1 ;;
	esac
}

man_page() {
	local m
	for m in "$PF_ROOT"/man/"$1".[18]; do
		[ -e "$m" ] && { echo "$m"; return 0; }
	done
	return 1
}

@test "every tool builds to bin/" {
	local t n=0
	for t in $(pf_tools); do
		[ -x "$PF_BIN_DIR/$t" ] || fail "$t: not built in $PF_BIN_DIR"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || fail "no tools found under bin/"
}

@test "-h and --help print the usage to stdout and exit 0" {
	local t
	for t in $(pf_tools); do
		for flag in -h --help; do
			run --separate-stderr "$t" "$flag"
			[ "$status" -eq 0 ] || fail "$t $flag: status $status"
			[[ "$output" == *"usage: $t"* ]] || fail "$t $flag: no 'usage: $t' on stdout"
			[ -z "$stderr" ] || fail "$t $flag: wrote to stderr: $stderr"
		done
	done
}

@test "--version prints the name and version and exits 0" {
	local t
	for t in $(pf_tools); do
		run --separate-stderr "$t" --version
		[ "$status" -eq 0 ] || fail "$t --version: status $status"
		[[ "$output" =~ ^$t\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "$t --version: '$output'"
	done
}

@test "an unknown option exits 2 with a reason and the synopsis on stderr" {
	local t
	for t in $(pf_tools); do
		run --separate-stderr "$t" --no-such-option
		[ "$status" -eq 2 ] || fail "$t: status $status, want 2"
		[ -z "$output" ] || fail "$t: wrote to stdout on misuse"
		[[ "${stderr_lines[0]}" == "$t: "* ]] || fail "$t: first line '${stderr_lines[0]}'"
		[[ "$stderr" == *"usage: $t"* ]] || fail "$t: no synopsis on stderr"
	done
}

@test "a missing input file exits 3 naming the file" {
	local t args
	for t in $(pf_tools); do
		args=$(missing_input_args "$t") || fail "$t: add it to missing_input_args"
		# shellcheck disable=SC2086
		run --separate-stderr "$t" $args
		[ "$status" -eq 3 ] || fail "$t $args: status $status, want 3 ($stderr)"
		[[ "$stderr" == *"/nonexistent/"* ]] || fail "$t: error does not name the path: $stderr"
	done
}

@test "every long option in --help is documented in the man page" {
	local t m opt
	for t in $(pf_tools); do
		m=$(man_page "$t") || fail "$t: no man page man/$t.[18]"
		for opt in $("$t" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
			grep -qE -- "Fl -${opt#--}([^a-z0-9-]|\$)" "$m" ||
				fail "$t: $opt is in --help but not in $m"
		done
	done
}

@test "every man page is mandoc -Tlint clean" {
	require_cmd mandoc
	local m
	for m in "$PF_ROOT"/man/*.[1-8]; do
		run mandoc -Tlint -W warning "$m"
		[ "$status" -eq 0 ] || fail "$m: $output"
	done
}

@test "every tool links only libc, libm, libelf, libdw and libcap" {
	require_cmd readelf
	local t lib
	for t in $(pf_tools); do
		for lib in $(readelf -d "$PF_BIN_DIR/$t" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			case $lib in
			libc.so.*|libm.so.*|libelf.so.*|libdw.so.*|libcap.so.*) ;;
			# Sanitizer runtimes, only in SANITIZE builds.
			libasan.so.*|libubsan.so.*|libstdc++.so.*|libgcc_s.so.*)
				[[ "$PF_BIN_DIR" == */build-san/* ]] || fail "$t needs $lib" ;;
			*) fail "$t needs $lib" ;;
			esac
		done
	done
}
