#!/usr/bin/env bats
# pf-svg: folded stacks to an interactive SVG.  Valid XML whatever the
# input holds, deterministic bytes, frames merged by frame sequence,
# flamegraph.pl's geometry, options and tooltip text.  Files only: the
# tests that draw a live recording are in pf-svg-live.bats.

load test_helper
load svg_helper

setup() {
	cd "$BATS_TEST_TMPDIR" || return
}

# fails_with_svg WHY ARGS...: pf-svg ARGS exits 3, says "pf-svg: WHY" on
# stderr and leaves a well-formed SVG saying the same on stdout.
fails_with_svg() {
	local why=$1
	shift
	run -3 --separate-stderr pf-svg "$@"
	[[ "$stderr" == *"pf-svg: $why"* ]] || fail "$*: stderr: $stderr"
	[ -n "$output" ] || fail "$*: nothing on stdout"
	printf '%s\n' "$output" >fail.svg
	xml_ok fail.svg
	grep -qF "ERROR: pf-svg: $why" fail.svg || fail "$*: the SVG does not say why: $output"
}

@test "hostile frame names still give well-formed XML, escaped and cleaned" {
	require_cmd xmllint
	local name
	while IFS= read -r name; do
		printf 'main;%b;leaf 5\nmain;other 3\n' "$name" >in.folded
		run -0 --separate-stderr pf-svg in.folded
		printf '%s\n' "$output" >out.svg
		xml_ok out.svg
		grep -q '<title>leaf (5 samples, 62.50%)</title>' out.svg ||
			fail "name '$name': the frame below it is missing"
	done <<-'EOF'
	<script>alert(1)</script>
	a & b &amp; c
	"quoted" and 'single'
	cdata ]]> end
	esc \033[31m red \033[0m
	bell \a back \b tab \t cr \r vt \v ff \f del \177
	junk \001\002\003\004\005\006\016\037\200\201\237\377\376
	overlong \300\257 and \340\200\257
	surrogate \355\240\200 end
	beyond \364\220\200\200 and \370\210\200\200\200
	truncated \342\202
	bom-ish \357\277\276 \357\277\277
	EOF
}

@test "markup in names is escaped in the tooltip and the label" {
	printf '<b>&"x"\n' | sed 's/$/ 4/' >in.folded
	run -0 pf-svg in.folded
	[[ "$output" == *'<title>&lt;b&gt;&amp;"x" (4 samples, 100.00%)</title>'* ]] ||
		fail "tooltip not escaped: $(grep -o '<title>[^(]*' <<<"$output" | tail -1)"
	[[ "$output" == *'>&lt;b&gt;&amp;"x"</text>'* ]] || fail "label not escaped"
	[[ "$output" != *"<b>"* ]] || fail "raw markup in the output"
}

@test "control characters and invalid UTF-8 become U+FFFD" {
	printf 'a\033b;c\377d 2\n' >in.folded
	run -0 pf-svg in.folded
	[[ "$output" == *$'<title>a\xef\xbf\xbdb (2 samples'* ]] || fail "ESC not replaced"
	[[ "$output" == *$'<title>c\xef\xbf\xbdd (2 samples'* ]] || fail "0xff not replaced"
	[[ "$output" != *$'\033'* ]] || fail "ESC reached the output"
}

@test "valid UTF-8 names pass through unchanged" {
	printf 'caf\303\251;\346\227\245\346\234\254;\360\237\224\245 3\n' >in.folded
	run -0 pf-svg in.folded
	[[ "$output" == *$'<title>caf\xc3\xa9 (3 samples'* ]] || fail "é changed"
	[[ "$output" == *$'<title>\xe6\x97\xa5\xe6\x9c\xac (3 samples'* ]] || fail "CJK changed"
	[[ "$output" == *$'<title>\xf0\x9f\x94\xa5 (3 samples'* ]] || fail "emoji changed"
}

@test "hostile titles, subtitle, countname, nametype, notes and font give well-formed XML" {
	require_cmd xmllint
	local evil
	evil=$(printf 'A&B <t> "q" \x27s\x27 ]]> -- --> \033[1m \001 \377 end-')
	printf 'a;b 1\n' >in.folded
	run -0 --separate-stderr pf-svg --title "$evil" --subtitle "$evil" \
		--countname "$evil" --nametype "$evil" --notes "$evil" \
		--fonttype "$evil" in.folded
	printf '%s\n' "$output" >out.svg
	xml_ok out.svg
	grep -q '<text id="title" [^>]*>A&amp;B &lt;t&gt; "q"' out.svg || fail "title not escaped"
	grep -q 'data-nametype="A&amp;B &lt;t&gt; &quot;q&quot; &apos;s&apos;' out.svg ||
		fail "nametype not escaped as an attribute"
	# The notes sit in a comment: no "--" inside, no "-" at the end.
	local notes
	notes=$(grep -o '<!-- NOTES: .* -->' out.svg)
	[ -n "$notes" ] || fail "no notes comment"
	notes=${notes#<!-- }
	notes=${notes% -->}
	[[ "$notes" != *--* ]] || fail "'--' inside the comment: $notes"
}

@test "two runs on the same input are byte-identical" {
	awk 'BEGIN { srand(7); for (i = 0; i < 2000; i++) {
		s = "app"; d = int(rand() * 6) + 1
		for (j = 0; j < d; j++) s = s ";f" int(rand() * 9) "_" j
		print s, int(rand() * 50) + 1 } }' >in.folded
	draw one.svg in.folded
	draw two.svg in.folded
	cmp one.svg two.svg
	# The order of the input lines does not matter either.
	sort -r in.folded >rev.folded
	draw three.svg rev.folded
	cmp one.svg three.svg
	[ "$(grep -c '<g data' one.svg)" -gt 100 ] || fail "too few frames to mean anything"
}

@test "a parent is one frame even when a sibling name sorts between its lines" {
	printf 'a 50\na-x;y 20\na;c 30\n' >in.folded
	draw out.svg in.folded
	[ "$(grep -c '<title>a (' out.svg)" -eq 1 ] || fail "a is split: $(grep '<title>a (' out.svg)"
	[ "$(tip a out.svg)" = "a (80 samples, 80.00%)" ]
	[ "$(tip a-x out.svg)" = "a-x (20 samples, 20.00%)" ]
	[ "$(tip c out.svg)" = "c (30 samples, 30.00%)" ]
}

@test "geometry matches the hand-computed layout" {
	# total 8, 1180 px for 8 samples: 147.5 px each; 3 rows:
	# image height 3*16 + 3*12 + (2*12 + 10) = 118.
	printf 'a;b 3\na;c 1\nd 4\n' >in.folded
	draw out.svg in.folded
	grep -q '<svg version="1.1" width="1200" height="118" viewBox="0 0 1200 118"' out.svg
	local -A want=(
		[all]="10.0 69.0 1180.0 15.0"
		[a]="10.0 53.0 590.0 15.0"
		[b]="10.0 37.0 442.5 15.0"
		[c]="452.5 37.0 147.5 15.0"
		[d]="600.0 53.0 590.0 15.0"
	)
	local f
	for f in "${!want[@]}"; do
		[ "$(geom "$f" out.svg)" = "${want[$f]}" ] ||
			fail "$f: got '$(geom "$f" out.svg)', want '${want[$f]}'"
	done
	[ "$(tip all out.svg)" = "all (8 samples, 100%)" ]
	[ "$(tip b out.svg)" = "b (3 samples, 37.50%)" ]
	grep -q '<text x="455.50" y="47.50">c</text>' out.svg || fail "label c misplaced"
}

@test "--inverted puts the root at the top and titles it Icicle Graph" {
	printf 'a;b 3\na;c 1\nd 4\n' >in.folded
	draw out.svg --inverted in.folded
	[ "$(geom all out.svg)" = "10.0 36.0 1180.0 15.0" ]
	[ "$(geom a out.svg)" = "10.0 52.0 590.0 15.0" ]
	[ "$(geom b out.svg)" = "10.0 68.0 442.5 15.0" ]
	grep -q '<text id="title" [^>]*>Icicle Graph</text>' out.svg
}

@test "--width, --height and --subtitle change the geometry as flamegraph.pl does" {
	printf 'a;b 1\n' >in.folded
	draw out.svg --width 620 --height 20 --subtitle s in.folded
	# 3 rows of 20, ypad1 = 36 + 24, ypad2 = 34: 60 + 60 + 34 = 154.
	grep -q 'width="620" height="154"' out.svg
	# depth 1: 154 - 34 - 2 * 20 + 1 = 81; 620 - 2 * 10 = 600 wide.
	[ "$(geom a out.svg)" = "10.0 81.0 600.0 19.0" ]
}

@test "--minwidth prunes narrow frames in px or percent without moving the others" {
	printf 'a;b 3\na;c 1\nd 4\n' >in.folded
	draw out.svg --minwidth 200 in.folded
	! grep -q '<title>c (' out.svg || fail "c (147.5 px) kept"
	[ "$(geom b out.svg)" = "10.0 37.0 442.5 15.0" ]
	[ "$(geom d out.svg)" = "600.0 53.0 590.0 15.0" ]
	draw out.svg --minwidth 500 in.folded
	# Only depth 0 and 1 remain: 2*16 + 70 = 102.
	grep -q 'height="102"' out.svg
	[ "$(grep -c '<g data' out.svg)" -eq 3 ]
	draw out.svg --minwidth 40% in.folded
	! grep -q '<title>b (' out.svg || fail "b (37.5%) kept under 40%"
	grep -q '<title>a (' out.svg
}

@test "labels are cut by character count and end in .." {
	# 590 px / (12 * 0.59) = 83 characters: 81 and "..".
	local long
	long=$(printf 'x%.0s' $(seq 1 100))
	printf '%s 1\nother 1\n' "$long" >in.folded
	run -0 pf-svg in.folded
	local label
	label=$(grep -F "<title>$long (" <<<"$output" | sed -n 's/.*<text [^>]*>\([^<]*\)<\/text>.*/\1/p')
	[ "$label" = "$(printf 'x%.0s' $(seq 1 81)).." ] || fail "label '$label' (${#label})"
	[[ "$output" == *"<title>other (1 samples, 50.00%)</title>"* ]]
}

@test "counts get thousands separators and --factor scales them" {
	printf 'a 1234567\nb 1\n' >in.folded
	run -0 pf-svg in.folded
	[[ "$output" == *"<title>a (1,234,567 samples, 100.00%)</title>"* ]]
	run -0 pf-svg --factor 2 --countname bytes in.folded
	[[ "$output" == *"<title>a (2,469,134 bytes, 100.00%)</title>"* ]]
}

@test "--total widens the scale and a smaller one is ignored with a warning" {
	printf 'a 50\n' >in.folded
	draw out.svg --total 100 in.folded
	[ "$(tip all out.svg)" = "all (50 samples, 50.00%)" ]
	[ "$(geom a out.svg)" = "10.0 37.0 590.0 15.0" ]
	run -0 --separate-stderr pf-svg --total 10 in.folded
	[[ "$stderr" == *"--total 10 is below the sum of the counts (50); ignored"* ]]
	[[ "$output" == *"<title>a (50 samples, 100.00%)</title>"* ]]
}

@test "a differential colours growth red and shrinkage blue, with the delta in the tooltip" {
	printf 'a;b 10 20\na;c 10 5\n' >in.folded
	draw out.svg in.folded
	# Widths from the second count; b +10 is the largest change.
	[ "$(tip b out.svg)" = "b (20 samples, 80.00%; +40.00%)" ]
	[ "$(tip c out.svg)" = "c (5 samples, 20.00%; -20.00%)" ]
	[ "$(tip a out.svg)" = "a (25 samples, 100.00%; +20.00%)" ]
	[ "$(fill b out.svg)" = "rgb(255,0,0)" ]
	[ "$(fill c out.svg)" = "rgb(105,105,255)" ]
	[ "$(fill a out.svg)" = "rgb(255,105,105)" ]
	draw neg.svg --negate in.folded
	[ "$(tip b neg.svg)" = "b (20 samples, 80.00%; -40.00%)" ]
	[ "$(fill b neg.svg)" = "rgb(0,0,255)" ]
	[ "$(fill c neg.svg)" = "rgb(255,105,105)" ]
}

@test "an unchanged frame in a differential is white" {
	printf 'a;b 7 7\na;c 1 3\n' >in.folded
	draw out.svg in.folded
	[ "$(fill b out.svg)" = "rgb(255,255,255)" ]
	[ "$(tip b out.svg)" = "b (7 samples, 70.00%; 0.00%)" ]
}

@test "annotations pick colours and are not shown" {
	printf 'java;Lfoo/Bar;run_[j];inl_[i];read_[l];sys_read_[k];native 1\n' >in.folded
	draw out.svg --colors java in.folded
	! grep -q '_\[[kjiwl]\]' out.svg || fail "annotation shown"
	[ -n "$(fill read out.svg)" ] || fail "no frame named read"
	local r g b
	IFS=', ' read -r r g b <<<"$(fill sys_read out.svg | tr -d 'rgb()')"
	[ "$r" -ge 190 ] && [ "$g" -ge 90 ] && [ "$g" -le 155 ] && [ "$b" -eq 0 ] ||
		fail "kernel frame not orange: $r,$g,$b"
	IFS=', ' read -r r g b <<<"$(fill run out.svg | tr -d 'rgb()')"
	[ "$g" -ge 200 ] && [ "$r" -le 110 ] || fail "JIT frame not green: $r,$g,$b"
	IFS=', ' read -r r g b <<<"$(fill inl out.svg | tr -d 'rgb()')"
	[ "$g" -ge 165 ] && [ "$b" -ge 165 ] && [ "$r" -le 110 ] || fail "inlined frame not aqua: $r,$g,$b"
}

# kinds FILE: one "KIND NAME" line per frame of the SVG FILE, KIND the hue
# its fill is in: green, purple, blue, hot (hot's red to yellow), other.
kinds() {
	awk '/<title>/ {
		t = $0; sub(/.*<title>/, "", t); sub(/ \([^(]*<\/title>.*/, "", t)
		c = $0; sub(/.*fill="rgb\(/, "", c); sub(/\).*/, "", c)
		split(c, v, ",")
		k = "other"
		if (v[2] >= 200 && v[1] <= 110 && v[3] <= 110) k = "green"
		else if (v[1] >= 190 && v[3] >= 190 && v[2] <= 140) k = "purple"
		else if (v[1] <= 140 && v[2] <= 140 && v[3] >= 190) k = "blue"
		else if (v[1] >= 200 && v[3] <= 55) k = "hot"
		print k, t
	}' "$1"
}

@test "Python functions (py::) have a hue of their own; the walk's markers are coloured as any frame" {
	local in="$FIXTURES/svg/python.folded" bad
	draw hot.svg "$in"
	# Every py:: frame green, every other one (markers, C, the root) hot.
	bad=$(kinds hot.svg | awk '($2 ~ /^py::/) != ($1 == "green") || ($1 != "green" && $1 != "hot")')
	[ -z "$bad" ] || fail "hot: $bad"
	[ "$(kinds hot.svg | grep -c '^green py::')" -eq 9 ] || fail "hot: $(kinds hot.svg)"
	kinds hot.svg | grep -qxF 'green py::parse\x3bsplit:/x/we\\ird.py' || fail "hot: $(kinds hot.svg)"
	kinds hot.svg | grep -qxF 'hot [py-mismatch]' || fail "hot: $(kinds hot.svg)"
	# io (an off-CPU graph's): py:: purple among the blues.
	draw io.svg --colors io "$in"
	bad=$(kinds io.svg | awk '($2 ~ /^py::/) != ($1 == "purple") || ($1 != "purple" && $1 != "blue")')
	[ -z "$bad" ] || fail "io: $bad"
	# java: green as a language's own code, never the native red.
	draw java.svg --colors java "$in"
	bad=$(kinds java.svg | awk '$2 ~ /^py::/ && $1 != "green"')
	[ -z "$bad" ] || fail "java: $bad"
	# A single hue asked for is kept: py:: frames blue too.
	draw blue.svg --colors blue "$in"
	bad=$(kinds blue.svg | awk '$1 != "blue"')
	[ -z "$bad" ] || fail "blue: $bad"
	# Only the prefix makes one: a name that merely holds "py::" is C's.
	printf 'a;xpy::f;py:f 1\n' | pf-svg >odd.svg
	! kinds odd.svg | grep -q '^green' || fail "$(kinds odd.svg)"
}

@test "every palette and background renders and stays valid" {
	require_cmd xmllint
	local p
	printf 'a;b_[k];c_[w] 1\n--;- 1\n' >in.folded
	for p in hot mem io wakeup chain java js perl red green blue aqua yellow purple orange; do
		draw out.svg --colors "$p" --hash in.folded
		xml_ok out.svg
	done
	draw out.svg in.folded
	[ "$(fill -- out.svg)" = "rgb(160,160,160)" ]
	[ "$(fill - out.svg)" = "rgb(200,200,200)" ]
	run -0 pf-svg --bgcolors '#123abc' in.folded
	[[ "$output" == *'<stop stop-color="#123abc" offset="5%"/><stop stop-color="#123abc" offset="95%"/>'* ]]
}

@test "colours come from the name: the same name has the same colour everywhere" {
	printf 'x;same 1\ny;same 1\nz;other 1\n' >in.folded
	run -0 pf-svg in.folded
	local fills
	fills=$(grep -F '<title>same (' <<<"$output" | sed -n 's/.*fill="\([^"]*\)".*/\1/p' | sort -u | wc -l)
	[ "$fills" -eq 1 ]
}

@test "--reverse merges from the leaf side" {
	printf 'a;b;c 2\nx;b;c 3\n' >in.folded
	draw out.svg --reverse in.folded
	[ "$(tip c out.svg)" = "c (5 samples, 100.00%)" ]
	[ "$(geom c out.svg)" = "10.0 69.0 1180.0 15.0" ]
	[ "$(grep -c '<title>b (' out.svg)" -eq 1 ]
}

@test "--flamechart keeps input order and merges only neighbours" {
	printf 'b 1\na 1\nb 1\nb 1\n' >in.folded
	draw out.svg --flamechart in.folded
	grep -q '<text id="title" [^>]*>Flame Chart</text>' out.svg
	[ "$(grep -o '<title>[ab] ([^<]*' out.svg | tr '\n' '|')" = \
	  "<title>b (1 samples, 25.00%)|<title>a (1 samples, 25.00%)|<title>b (2 samples, 50.00%)|" ]
	run -0 pf-svg in.folded
	[ "$(grep -o '<title>[ab] ([^<]*' <<<"$output" | tr '\n' '|')" = \
	  "<title>a (1 samples, 25.00%)|<title>b (3 samples, 75.00%)|" ]
}

@test "empty input exits 3 with a message and a small valid SVG" {
	require_cmd xmllint
	local input
	for input in '' '# only a comment\n' '\n\n' 'no count here\n'; do
		printf '%b' "$input" >in.folded
		run -3 --separate-stderr pf-svg in.folded
		[[ "$stderr" == *"pf-svg: no stack counts found in the input"* ]] || fail "stderr: $stderr"
		printf '%s\n' "$output" >out.svg
		xml_ok out.svg
		grep -q 'ERROR: no stack counts found' out.svg
	done
}

@test "invalid lines are warned with file:line, the first 10 then a count" {
	{
		echo "good;stack 5"
		for i in $(seq 1 12); do echo "bad line $i x"; done
		echo "frac;count 1.5"
	} >in.folded
	run -0 --separate-stderr pf-svg in.folded
	[ "${stderr_lines[0]}" = "pf-svg: in.folded:2: ignored: not STACK COUNT or STACK COUNT1 COUNT2" ]
	[ "${#stderr_lines[@]}" -eq 11 ]
	[ "${stderr_lines[10]}" = "pf-svg: ignored 13 invalid lines in all (the first 10 shown)" ]
	printf 'x 1.5\ny 2\n' >frac.folded
	run -0 --separate-stderr pf-svg frac.folded
	[ "$stderr" = "pf-svg: frac.folded:1: ignored: fractional count (counts are whole numbers)" ]
}

@test "zero-count stacks are left out" {
	printf 'a;b 0\na;c 4\n' >in.folded
	run -0 pf-svg in.folded
	[[ "$output" != *"<title>b ("* ]]
	[[ "$output" == *"<title>c (4 samples, 100.00%)"* ]]
}

@test "several files and stdin are merged" {
	printf 'a;b 1\n' >one.folded
	printf 'a;b 2\n' >two.folded
	run -0 pf-svg one.folded - two.folded < <(printf 'a;c 1\n')
	[[ "$output" == *"<title>b (3 samples, 75.00%)"* ]]
	[[ "$output" == *"<title>c (1 samples, 25.00%)"* ]]
}

@test "a total past 2^64-1 is an error, not a wrap" {
	printf 'a 18446744073709551615\nb 1\n' >in.folded
	run -3 --separate-stderr pf-svg in.folded
	[[ "$stderr" == *"in.folded:2: total count over 2^64-1"* ]]
}

@test "a full stdout is an error" {
	[ -w /dev/full ] || skip "/dev/full not available"
	printf 'a 1\n' >in.folded
	run -3 bash -c "pf-svg in.folded >/dev/full"
	[[ "$output" == *"pf-svg: stdout: No space left on device"* ]] || fail "$output"
}

@test "an input that cannot be read still leaves a well-formed SVG saying why, exit 3" {
	require_cmd xmllint
	printf 'a;b 1\n' >in.folded
	mkdir adir
	fails_with_svg "missing.folded: No such file or directory" in.folded missing.folded
	fails_with_svg "adir:1: Is a directory" in.folded adir
	# A stream without a newline: the line limit, after input started.
	head -c $((65 << 20)) /dev/zero | tr '\0' a >long.folded
	fails_with_svg "long.folded:1: " in.folded long.folded
}

@test "--nameattr, --cp and count failures still leave a well-formed SVG saying why, exit 3" {
	require_cmd xmllint
	printf 'a;b 1\n' >in.folded
	mkdir adir
	fails_with_svg "missing: No such file or directory" --nameattr missing in.folded
	fails_with_svg "adir: Is a directory" --nameattr adir in.folded
	printf 'a 18446744073709551615\nb 1\n' >big.folded
	fails_with_svg "big.folded:2: total count over 2^64-1" big.folded
	ln -s adir palette.map
	fails_with_svg "palette.map: is a symbolic link" --cp in.folded
	rm palette.map
	mkdir palette.map
	fails_with_svg "palette.map: not a regular file" --cp in.folded
}

@test "out of memory at any allocation still leaves a well-formed SVG, exit 3" {
	require_cmd cc
	require_cmd xmllint
	if ldd "$(command -v pf-svg)" | grep -q libasan; then
		skip "ASan replaces malloc itself"
	fi
	# From the FAIL_AFTER-th call on, every malloc, calloc and realloc
	# fails: memory running out for good, as on the sick host.
	cat >failmalloc.c <<-'EOF'
	#include <errno.h>
	#include <stdlib.h>
	void *__libc_malloc(size_t);
	void *__libc_calloc(size_t, size_t);
	void *__libc_realloc(void *, size_t);
	static long left = -1;
	__attribute__((constructor)) static void init(void)
	{ const char *s = getenv("FAIL_AFTER"); left = s ? atol(s) : -1; }
	static int refuse(void)
	{ if (left < 0) return 0; if (left == 0) { errno = ENOMEM; return 1; } left--; return 0; }
	void *malloc(size_t n) { return refuse() ? NULL : __libc_malloc(n); }
	void *calloc(size_t k, size_t n) { return refuse() ? NULL : __libc_calloc(k, n); }
	void *realloc(void *p, size_t n) { return refuse() ? NULL : __libc_realloc(p, n); }
	EOF
	cc -shared -fPIC -o failmalloc.so failmalloc.c || fail "cannot build the shim"
	# Over 256 KiB of frames, then a long name the renderer needs more
	# memory for: it runs out after part of the document went out.
	{
		awk 'BEGIN { for (i = 0; i < 3000; i++) print "main;fn" i % 97 ";leaf" i, i % 13 + 1 }'
		printf 'main;z%0400000d 5\n' 0
	} >in.folded
	local n cut=0 early=0
	# (The SVG goes to a file: a few MB through bash's run each time took
	# most of the test's time.)
	local status
	for ((n = 0; n < 2000; n++)); do
		status=0
		env FAIL_AFTER=$n LD_PRELOAD="$PWD/failmalloc.so" pf-svg in.folded >out.svg 2>err || status=$?
		[ "$status" -eq 0 ] && break
		[ "$status" -eq 3 ] || fail "allocation $n: exit $status: $(cat err)"
		grep -q "Cannot allocate memory" err || fail "allocation $n: stderr: $(cat err)"
		xml_ok out.svg
		if grep -q 'ERROR: out of memory: the graph is incomplete' out.svg; then
			cut=$((cut + 1))
		elif grep -q 'ERROR: ' out.svg; then
			early=$((early + 1))
		else
			fail "allocation $n: the SVG does not say why"
		fi
	done
	[ "$status" -eq 0 ] || fail "still failing after $n allocations"
	[ "$early" -gt 10 ] || fail "only $early failures before the document began"
	[ "$cut" -gt 0 ] || fail "memory never ran out after the document began"
}

@test "bad option values are usage errors" {
	local args
	printf 'a 1\n' >in.folded
	while IFS= read -r args; do
		# shellcheck disable=SC2086
		run -2 --separate-stderr pf-svg $args in.folded
		[[ "${stderr_lines[0]}" == "pf-svg: "* ]] || fail "$args: ${stderr_lines[0]}"
		[ -z "$output" ] || fail "$args: wrote to stdout"
	done <<-'EOF'
	--width abc
	--width 0
	--width 12x
	--height 1.5
	--height 0
	--minwidth -1
	--minwidth 101%
	--minwidth x%
	--fontsize 0
	--fontwidth abc
	--factor 0
	--total 0
	--total -5
	--colors nope
	--bgcolors red
	--bgcolors #12345
	--encoding NO-SUCH-ENCODING-X
	--encoding a"b
	EOF
}

@test "--encoding converts names from that encoding to UTF-8" {
	require_cmd xmllint
	printf 'caf\351;na\357ve 2\n' >in.folded
	draw out.svg --encoding ISO-8859-1 in.folded
	xml_ok out.svg
	grep -qF $'<title>caf\xc3\xa9 (2 samples' out.svg
	grep -qF $'<title>na\xc3\xafve (2 samples' out.svg
}

@test "--cp writes palette.map and reuses its colours" {
	printf 'a;b 1\n' >in.folded
	run -0 pf-svg --cp in.folded
	[ -f palette.map ]
	grep -qx "b->$(fill b <(printf '%s\n' "$output"))" palette.map
	printf 'b->rgb(1,2,3)\n' >palette.map
	run -0 pf-svg --cp in.folded
	[ "$(fill b <(printf '%s\n' "$output"))" = "rgb(1,2,3)" ]
	grep -qx 'b->rgb(1,2,3)' palette.map
	grep -q '^a->rgb(' palette.map
}

@test "--cp refuses a palette.map symlink and leaves its target alone" {
	printf 'a 1\n' >in.folded
	echo "precious" >target
	ln -s target palette.map
	run -3 --separate-stderr pf-svg --cp in.folded
	[[ "$stderr" == *"palette.map: is a symbolic link"* ]]
	[ "$(cat target)" = "precious" ]
}

@test "--nameattr adds links and attributes, refusing script" {
	require_cmd xmllint
	printf 'a;b 1\na;c 1\n' >in.folded
	printf 'b\thref=https://example.invalid/?q=1&r=2\ttitle=<B> docs\tclass=hot\n' >attrs
	printf 'c\thref=javascript:alert(1)\tg_extra=onclick="alert(1)"\tid=ok\n' >>attrs
	run -0 --separate-stderr pf-svg --nameattr attrs in.folded
	printf '%s\n' "$output" >out.svg
	xml_ok out.svg
	grep -q '<a data-s="0" data-n="1" data-name="b" class="hot" xlink:href="https://example.invalid/?q=1&amp;r=2" target="_top"><title>&lt;B&gt; docs</title>' out.svg
	! grep -q 'javascript:' out.svg || fail "script href kept"
	! grep -q 'onclick' out.svg || fail "event handler kept"
	grep -q '<g data-s="1" data-n="1" id="ok"><title>c (' out.svg
	[[ "$stderr" == *"attrs:2: ignored href javascript:alert(1): only http, https and relative links"* ]]
	[[ "$stderr" == *"attrs:2: ignored g_extra"* ]]
}

@test "--nameattr links: only http, https and relative ones, however the scheme is spelt" {
	require_cmd xmllint
	local href k=0 refused=()
	# One function a line, each with a link a browser must not follow.
	while IFS= read -r href; do
		k=$((k + 1))
		printf 'main;f%d 1\n' "$k" >>in.folded
		printf 'f%d\thref=%b\n' "$k" "$href" >>attrs
		refused+=("$k")
	done <<-'EOF'
	data:text/html,<script>alert(1)</script>
	data:image/svg+xml;base64,PHN2Zz4=
	javascript:alert(1)
	JaVaScRiPt:alert(1)
	vbscript:msgbox(1)
	file:///etc/passwd
	 javascript:alert(1)
	\001javascript:alert(1)
	\037javascript:alert(1)
	java\rscript:alert(1)
	\302\240javascript:alert(1)
	javascript&#58;alert(1)
	javascript&colon;alert(1)
	jav&#x09;ascript:alert(1)
	javascript%3aalert(1)
	java\\script:alert(1)
	 https://example.invalid/lead
	https://example.invalid/trail\040
	EOF
	run -0 --separate-stderr pf-svg --nameattr attrs in.folded
	printf '%s\n' "$output" >out.svg
	xml_ok out.svg
	! grep -q '<a ' out.svg || fail "a refused link was kept: $(grep -o '<a [^>]*>' out.svg)"
	for k in "${refused[@]}"; do
		grep -q "<title>f$k (1 samples" out.svg || fail "f$k is not drawn"
		[[ "$stderr" == *"attrs:$k: ignored href "*": only http, https and relative links"* ]] ||
			fail "no warning for line $k: $stderr"
	done
	# What stays a link.
	printf 'main;g%d 1\n' 1 2 3 4 5 6 >>in.folded
	{
		printf 'g1\thref=https://example.invalid/a?b=1&c=2\n'
		printf 'g2\thref=HTTP://example.invalid/\n'
		printf 'g3\thref=docs/x.html#y\n'
		printf 'g4\thref=//example.invalid/p\n'
		printf 'g5\thref=#frag\n'
		printf 'g6\thref=../a:b\n'
	} >>attrs
	run -0 --separate-stderr pf-svg --nameattr attrs in.folded
	[ "$(grep -c '<a ' <<<"$output")" -eq 6 ] || fail "$(grep -o '<a [^>]*>' <<<"$output")"
	[[ "$output" == *'xlink:href="https://example.invalid/a?b=1&amp;c=2"'* ]]
	[[ "$output" == *'xlink:href="HTTP://example.invalid/"'* ]]
	[[ "$output" == *'xlink:href="../a:b"'* ]]
}

@test "--nameattr cannot add event handlers, style, URL-taking, namespaced or duplicate attributes" {
	require_cmd xmllint
	local line k=0
	while IFS= read -r line; do
		k=$((k + 1))
		printf 'main;f%d 1\n' "$k" >>in.folded
		printf 'f%d\t%s\n' "$k" "$line" | sed 's/|/\t/g' >>attrs
	done <<-'EOF'
	g_extra=onclick="alert(1)"
	g_extra=ONLOAD="alert(1)"
	g_extra=data-ok="1" onmouseover='alert(1)'
	href=https://example.invalid/|a_extra=href="javascript:alert(1)"
	href=https://example.invalid/|a_extra=xlink:href="javascript:alert(1)"
	g_extra=style="fill:url(https://evil.invalid/s)"
	g_extra=fill="url(https://evil.invalid/f)"
	g_extra=filter="url(https://evil.invalid/f.svg#f)"
	g_extra=cursor="url(https://evil.invalid/c.cur),auto"
	href=https://example.invalid/|a_extra=ping="https://evil.invalid/p"
	g_extra=xmlns="http://www.w3.org/1999/xhtml"
	g_extra=a:b="1"
	g_extra=data-s="99999"
	class=a|class=b
	href=https://example.invalid/|g_extra=data-x="1"|a_extra=data-x="2"
	g_extra=data-y="1" data-y="2"
	EOF
	run -0 --separate-stderr pf-svg --nameattr attrs in.folded
	printf '%s\n' "$output" >out.svg
	xml_ok out.svg
	local bad
	for bad in onclick ONLOAD onmouseover javascript style= 'url(h' evil.invalid \
		xhtml a:b= 'data-s="99999"' 'class="b"' 'data-x="2"' 'data-y="2"' 'data-ok'; do
		! grep -qF "$bad" out.svg || fail "$bad kept: $(grep -F "$bad" out.svg | head -c 300)"
	done
	for ((k = 1; k <= 16; k++)); do
		grep -q "<title>f$k (1 samples" out.svg || fail "f$k is not drawn"
		[[ "$stderr" == *"attrs:$k: ignored "* ]] || fail "no warning for line $k: $stderr"
	done
	# The first of two is kept; a link keeps its one href.
	grep -q '<g data-s="[0-9]*" data-n="1" class="a"><title>f14 (' out.svg
	grep -q '<a data-s="[0-9]*" data-n="1" data-x="1" xlink:href="https://example.invalid/" target="_top"><title>f15 (' out.svg
	[ "$(grep -c 'xlink:href=' out.svg)" -eq 4 ]
	# What g_extra and a_extra are for still works, escaped.
	printf 'a;b 1\n' >in.folded
	printf 'b\thref=https://example.invalid/\tg_extra=data-k="v&1" aria-label=\x27b <x>\x27 opacity="0.5"\ta_extra=rel="noopener" hreflang="en"\n' >attrs
	run -0 --separate-stderr pf-svg --nameattr attrs in.folded
	[ -z "$stderr" ] || fail "warned: $stderr"
	[[ "$output" == *'<a data-s="0" data-n="1" data-k="v&amp;1" aria-label="b &lt;x&gt;" opacity="0.5" xlink:href="https://example.invalid/" target="_top" rel="noopener" hreflang="en"><title>b ('* ]] ||
		fail "$(grep -o '<a [^>]*>' <<<"$output")"
}

@test "the script is embedded once, in CDATA, and the document has no external references" {
	printf 'a 1\n' >in.folded
	run -0 pf-svg in.folded
	[ "$(grep -c '<script type="text/ecmascript"><!\[CDATA\[' <<<"$output")" -eq 1 ]
	[[ "$output" != *"<!DOCTYPE"* ]]
	! grep -E '(src|href)="(https?:)?//' <<<"$output" || fail "external reference"
}

@test "unambiguous prefixes of long options work, as with flamegraph.pl" {
	printf 'a;b_[k] 1\n' >in.folded
	draw out.svg --color=java --inv --tit T in.folded
	grep -q '<text id="title" [^>]*>T</text>' out.svg
	[ "$(geom all out.svg)" = "10.0 36.0 1180.0 15.0" ] || fail "not inverted: $(geom all out.svg)"
	local r g b
	IFS=', ' read -r r g b <<<"$(fill b out.svg | tr -d 'rgb()')"
	[ "$r" -ge 190 ] && [ "$b" -eq 0 ] || fail "java palette not used: $r,$g,$b"
	run -2 --separate-stderr pf-svg --f in.folded
	[[ "${stderr_lines[0]}" == "pf-svg: "* ]]
}

@test "--help describes every option of the synopsis on a line of its own" {
	run -0 pf-svg --help
	local opt n=0
	while read -r opt; do
		grep -qE -- "^ +$opt( [A-Z|%]+)? {2,}[a-z(]" <<<"$output" ||
			fail "$opt has no description line"
		n=$((n + 1))
	done < <(sed -n '/^usage:/,/^$/p' <<<"$output" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
	[ "$n" -ge 20 ] || fail "only $n options in the synopsis"
}

@test "the script in the SVG is lib/common/flame.js, byte for byte" {
	printf 'a 1\n' >in.folded
	pf-svg in.folded >out.svg
	# Between the line that opens the CDATA section and the one closing it.
	awk '/^]]><\/script>$/ { on = 0 } on { print } /<!\[CDATA\[$/ { on = 1 }' \
	    out.svg >script.js
	[ -s script.js ] || fail "no script found"
	cmp script.js "$PF_ROOT/lib/common/flame.js"
}

@test "node parses lib/common/flame.js" {
	require_cmd node
	run node --check "$PF_ROOT/lib/common/flame.js"
	[ "$status" -eq 0 ] || fail "$output"
	# The check has teeth: a script cut short does not parse.
	head -c 4000 "$PF_ROOT/lib/common/flame.js" >cut.js
	run node --check cut.js
	[ "$status" -ne 0 ] || fail "node --check accepted a truncated script"
}

# --- provenance ----------------------------------------------------------

@test "the provenance title and subtitle yield to --title and --subtitle" {
	pf-fold "$FIXTURES/fold/prov-record.perf" > in.folded
	pf-svg in.folded > a.svg
	run heading title a.svg
	assert_output "CPU: nginx (pid 4242) on web1"
	run heading subtitle a.svg
	assert_output "start 2026-12-02T11:00:00Z, window 15s, 99 Hz, 2 samples, call graph dwarf"
	pf-svg --title T --subtitle S in.folded > b.svg
	run heading title b.svg
	assert_output T
	run heading subtitle b.svg
	assert_output S
	# Without provenance, the default title as before and no subtitle.
	grep -v '^#' in.folded | pf-svg > c.svg
	run heading title c.svg
	assert_output "Flame Graph"
	run heading subtitle c.svg
	assert_output ""
}

@test "the subtitle says the share of incomplete stacks past 5%, with the main cause in words" {
	sed 's/ truncated=0 stop=/ truncated=1 unknown-chain=0 incomplete=1 incomplete-causes=stack-copy:1 stop=/' \
	    "$FIXTURES/fold/prov-record.perf" | pf-fold > in.folded
	pf-svg in.folded > a.svg
	run heading subtitle a.svg
	assert_output "start 2026-12-02T11:00:00Z, window 15s, 99 Hz, 2 samples, 1 truncated, call graph dwarf, 50% of stacks incomplete (mostly: stack copy too short)"
	# 5% is no news.
	sed 's/ samples=2 / samples=20 /; s/ incomplete=1 / incomplete=1 /' in.folded > b.folded
	pf-svg b.folded > b.svg
	run heading subtitle b.svg
	assert_output "start 2026-12-02T11:00:00Z, window 15s, 99 Hz, 20 samples, 1 truncated, call graph dwarf"
}

@test "merged folded files from two hosts name both in the title" {
	pf-fold "$FIXTURES/fold/prov-record.perf" > web1.folded
	sed 's/host=web1/host=web2/' "$FIXTURES/fold/prov-record.perf" | pf-fold > web2.folded
	pf-fold --folded web1.folded web2.folded | pf-svg > m.svg
	run heading title m.svg
	assert_output "CPU: nginx (pid 4242) on web1; nginx (pid 4242) on web2"
	# A fleet: three named, the rest counted.
	for h in 3 4 5; do
		sed "s/host=web1/host=web$h/" "$FIXTURES/fold/prov-record.perf" | pf-fold > "web$h.folded"
	done
	pf-fold --folded web1.folded web2.folded web3.folded web4.folded web5.folded | pf-svg > f.svg
	run heading title f.svg
	assert_output "CPU: nginx (pid 4242) on web1; nginx (pid 4242) on web2; nginx (pid 4242) on web3; and 2 more"
	run heading subtitle f.svg
	assert_output --regexp '^(start [^|]* \| ){2}start [^|]* \| \.\.\.$'
}

@test "an off-CPU graph gets the io palette and time units in its tooltips by itself" {
	pf-fold "$FIXTURES/fold/prov-offcpu.perf" > off.folded
	pf-svg off.folded > off.svg
	run tip read_table off.svg
	assert_output "read_table (2.50 s, 98.81%)"
	run tip write_archive off.svg
	assert_output "write_archive (30.00 ms, 1.19%)"
	! grep -q ' samples, ' off.svg || fail "a tooltip counts samples"
	run heading title off.svg
	assert_output "Off-CPU time: pg_dump on db1"
	# The same stacks drawn with --colors io: the same fills.
	grep -v '^#' off.folded | pf-svg --colors io > io.svg
	[ "$(fill read_table off.svg)" = "$(fill read_table io.svg)" ]
	[ "$(fill read_table off.svg)" != "$(grep -v '^#' off.folded | pf-svg > hot.svg; fill read_table hot.svg)" ]
	# --colors and --countname still decide when given.
	pf-svg --colors hot --countname ns off.folded > own.svg
	run tip read_table own.svg
	assert_output "read_table (2,500,000,000 ns, 98.81%)"
	[ "$(fill read_table own.svg)" = "$(fill read_table hot.svg)" ]
}

@test "frames with a blank name are drawn, as flamegraph.pl draws them" {
	printf 'a;;b 3\n;x 2\n' | pf-svg > blank.svg
	xml_ok blank.svg
	# The blank frame sits between a and b, and is the root of x.
	[ "$(grep -c '<title> (' blank.svg)" -eq 2 ]
	read -r _ ya _ _ <<<"$(geom a blank.svg)"
	read -r _ yb _ _ <<<"$(geom b blank.svg)"
	read -r _ yx _ _ <<<"$(geom x blank.svg)"
	run tip "" blank.svg
	assert_line " (3 samples, 60.00%)"
	assert_line " (2 samples, 40.00%)"
	awk -v a="$ya" -v b="$yb" -v x="$yx" 'BEGIN { exit !(a - b == 32 && a - x == 16) }' ||
		fail "depths: a at y=$ya, b at $yb, x at $yx"
}

# flamegraph_totals FILE: frame_totals's lines for the frames flamegraph.pl
# draws from folded FILE, by its line rule as its documented behaviour
# gives it (our own words and code): a line splits at the one
# white-space character that only its count (a fraction allowed) follows,
# so any more white space stays at the end of the last frame's name; when
# the stack then ends in white space and a number too, that number is a
# differential's first count and the last one gives the width; ";"
# separates frames, empty ones at the end dropped.  A frame's samples add
# up the same whatever order the lines merge in, so flamegraph.pl's
# whole-line sort (which may split a parent, where pf-svg does not) needs
# no modelling.
flamegraph_totals() {
	awk '
	{
		if (!match($0, /[[:space:]][0-9]+(\.[0-9]*)?$/))
			next
		w = substr($0, RSTART + 1)
		s = substr($0, 1, RSTART - 1)
		if (match(s, /[[:space:]][0-9]+(\.[0-9]*)?$/))
			s = substr(s, 1, RSTART - 1)
		n = split(s, f, ";")
		while (n > 0 && f[n] == "")
			n--
		all += w
		for (i = 1; i <= n; i++)
			tot[i "\t" f[i]] += w
	}
	END {
		printf "0\tall\t%.0f\n", all
		for (k in tot)
			printf "%s\t%.0f\n", k, tot[k]
	}' "$1" | sort
}

@test "frame totals equal flamegraph.pl's on every conformance input" {
	local conf="$SHARED_DIR/conformance/stackcollapse-perf/expected" f n=0 bad=
	[ -d "$conf" ] || skip "conformance data not found at $conf (set PF_SHARED_DIR)"
	# --minwidth 0: every frame drawn, none pruned by a width that
	# flamegraph.pl's split parents would reach differently.
	for f in "$conf"/*.default.folded; do
		pf-svg --minwidth 0 "$f" >g.svg
		frame_totals g.svg >pf.txt
		flamegraph_totals "$f" >fg.txt
		[ "$(wc -l <fg.txt)" -gt 2 ] || fail "${f##*/}: no frames to compare"
		if ! cmp -s pf.txt fg.txt; then
			bad="$bad ${f##*/}"
			diff pf.txt fg.txt | head -4 | cut -c1-160 >&2
		fi
		n=$((n + 1))
	done
	[ -z "$bad" ] || fail "frame totals differ from flamegraph.pl's:$bad"
	# The 14 captures of stackcollapse-perf.pl's suite, default options.
	[ "$n" -eq 14 ] || fail "compared $n inputs, expected 14"
}

@test "a frame named by a single space is drawn, as flamegraph.pl draws it" {
	# Hand-made.  flamegraph.pl takes one white-space character before
	# the count, so "run;  3" ends in a frame named " " (a perf frame
	# printed without a symbol can fold to that), and more white space
	# makes longer names.
	local f="$FIXTURES/svg/blank-symbols.folded" yrun ysp
	pf-svg "$f" >sp.svg
	xml_ok sp.svg
	# "run;  3": a frame named by one space on run, as wide as its 3.
	run tip " " sp.svg
	assert_output "  (1 samples, 6.67%)
  (3 samples, 20.00%)"
	read -r _ yrun _ _ <<<"$(geom run sp.svg)"
	ysp=$(grep -F '<title>  (3 samples' sp.svg | sed -n 's/.*<rect x="[^"]*" y="\([^"]*\)".*/\1/p')
	awk -v r="$yrun" -v s="$ysp" 'BEGIN { exit !(r - s == 16) }' ||
		fail "the blank frame at y=$ysp, run at $yrun"
	# Three spaces make a frame of two; "poll  5" a frame "poll ".
	run tip "  " sp.svg
	assert_output "   (4 samples, 26.67%)"
	run tip "poll " sp.svg
	assert_output "poll  (5 samples, 33.33%)"
	run tip poll sp.svg
	assert_failure
	# Every frame as flamegraph.pl's line rule gives it.
	frame_totals sp.svg >pf.txt
	flamegraph_totals "$f" >fg.txt
	diff pf.txt fg.txt
	grep -qx $'4\t \t3' pf.txt
	# --reverse keeps the blank frame: the root's child now.
	pf-svg --reverse "$f" >rev.svg
	run tip " " rev.svg
	assert_line "  (3 samples, 20.00%)"
	read -r _ yrun _ _ <<<"$(geom all rev.svg)"
	ysp=$(grep -F '<title>  (3 samples' rev.svg | sed -n 's/.*<rect x="[^"]*" y="\([^"]*\)".*/\1/p')
	awk -v r="$yrun" -v s="$ysp" 'BEGIN { exit !(r - s == 16) }' ||
		fail "reversed, the blank frame at y=$ysp, the root at $yrun"
}

@test "the search's Matched line stays in a 900 px high window however deep the graph" {
	local d h y top
	for d in 60 200; do
		# A stack d frames deep, the deeper one with a provenance line
		# (a subtitle, as a recording's graph has).
		{
			if [ "$d" -eq 200 ]; then
				pf-fold "$FIXTURES/fold/prov-record.perf" | grep '^#'
			fi
			seq -f 'f%g' "$d" | paste -sd';' | sed 's/$/ 7/'
			echo 'f1;g 3'
		} >deep.folded
		pf-svg deep.folded >deep.svg
		h=$(sed -n 's/^<svg [^>]* height="\([0-9]*\)".*/\1/p' deep.svg)
		[ "$h" -gt 900 ] || fail "depth $d: $h px tall, no deeper than a window"
		y=$(sed -n 's/^<text id="matched" x="[^"]*" y="\([^"]*\)".*/\1/p' deep.svg)
		# The baseline and the 3 px a descender takes below it.
		awk -v y="$y" 'BEGIN { exit !(y > 0 && y + 3 <= 900) }' ||
			fail "depth $d: Matched at y=$y in a graph $h px tall"
		# Above the highest frame, so no frame hides it.
		top=$(grep '^<[ga] data-s=' deep.svg | sed -n 's/.*<rect x="[^"]*" y="\([^"]*\)".*/\1/p' | sort -n | head -n 1)
		awk -v y="$y" -v t="$top" 'BEGIN { exit !(y < t) }' ||
			fail "depth $d: Matched at y=$y, a frame at $t"
	done
}
