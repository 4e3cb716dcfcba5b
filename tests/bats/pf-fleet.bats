#!/usr/bin/env bats
# scripts/ansible/pf-fleet.yml: the fleet playbook really runs pf-triage on
# each host of an inventory (local connections here), fetches and checks
# the bundles and draws one graph of the fleet.

load test_helper

PLAYBOOK="$PF_ROOT/scripts/ansible/pf-fleet.yml"

setup() {
	require_root
	require_perf_events
	require_cmd ansible-playbook
	cd "$BATS_TEST_TMPDIR" || return
	mkdir -m 0700 remote
	{
		echo '[fleet]'
		for h in h1 h2; do
			echo "$h ansible_connection=local ansible_python_interpreter=/usr/bin/python3"
		done
		# The tools of this checkout, used in place.
		echo '[fleet:vars]'
		echo "pf_prefix=$PF_SCRIPTS"
	} > inventory
}

# target: start the target, a spinner whose name no other test uses, as
# WPID.  It outlives the test (teardown kills it): a target that had
# ended before the hosts looked failed the run (exit 2, "no process named
# pffleet" on each host).  A test starts it only once nothing but the
# playbook is left to do: it spins for as long as it runs, and the CPU it
# takes while a test prepares (the static kit's build, a minute on a busy
# machine) is taken from the other suites.
target() {
	cp "$WORKLOADS/rec-split" pffleet
	./pffleet 900 &
	WPID=$!
	wait_exec "$WPID" pffleet
}

teardown() {
	[ -z "${WPID:-}" ] || kill "$WPID" 2>/dev/null || true
}

# fleet ARGS...: the playbook against ./inventory (Ansible wants a UTF-8
# locale).
fleet() {
	LC_ALL=C.UTF-8 ANSIBLE_NOCOLOR=1 ANSIBLE_LOCAL_TEMP="$BATS_TEST_TMPDIR/ansible-local" \
	    ANSIBLE_REMOTE_TEMP="$BATS_TEST_TMPDIR/ansible-remote" \
	    ansible-playbook -i inventory "$PLAYBOOK" -e pf_comm=pffleet \
	    -e pf_fetch_dir="$BATS_TEST_TMPDIR/out" -e pf_duration=2 -e pf_interval=1 \
	    -e pf_remote_tmp="$BATS_TEST_TMPDIR/remote" -e pf_local_bin="$PF_BIN_DIR" "$@"
}

@test "two hosts: two verified bundles, one graph naming the hot function, nothing left behind" {
	target
	run -0 fleet
	assert_output --partial "no host failed"
	for h in h1 h2; do
		[ -s "out/$h.tar.gz" ]
		(cd "out/$h"/pf-bundle-*/ && sha256sum -c --quiet SHA256SUMS)
		grep -q "^target $WPID pffleet$" "out/$h/summary.txt"
		grep -q "^h1;pffleet;.*rec_alpha [0-9]*$" out/fleet.folded
		grep -q "^$h;pffleet;" out/fleet.folded
	done
	xmllint --noout out/fleet.svg
	grep -q 'rec_alpha' out/fleet.svg
	grep -q '>h1<\|>h1 \|"h1' out/fleet.svg
	# The report of the fleet names the hot function first.
	awk '/^functions by self/ { getline; getline; print $NF; exit }' out/fleet-report.txt | grep -qx rec_alpha
	[ ! -s out/failed.txt ]
	# Whatever the playbook put on the hosts is gone.
	[ -z "$(ls -A remote)" ]
}

@test "a host that fails is listed at the end and the others still make the graph" {
	# A host variable beats the group's: h3 has no tools where it looks.
	sed -i '/^\[fleet:vars\]/i h3 ansible_connection=local ansible_python_interpreter=/usr/bin/python3 pf_prefix=/nonexistent/pf' inventory
	target
	run fleet
	[ "$status" -ne 0 ]
	assert_output --partial "failed hosts: h3 "
	grep -q "^h3 Run pf-triage" out/failed.txt
	grep -q "^h1;pffleet;" out/fleet.folded
	grep -q "^h2;pffleet;" out/fleet.folded
	[ ! -e out/h3.tar.gz ]
	[ -z "$(ls -A remote)" ]
}

@test "missing variables are refused before any host is touched" {
	run fleet -e pf_comm=
	[ "$status" -ne 0 ]
	assert_output --partial "pf-fleet: set pf_comm and pf_fetch_dir"
	[ ! -e out ]
}

@test "without pf_prefix the static kit is copied to each host, used, and removed" {
	# The kit is never sanitized (make static clears SANITIZE): in the
	# sanitizer pass this test would build and run unsanitized code only.
	[[ "$PF_BIN_DIR" != */build-san/* ]] || skip "the static kit is never sanitized: the plain pass runs this test"
	make_static >/dev/null 2>&1 || fail "make static failed"
	[ -x "$PF_ROOT/build/static/pf-triage" ] || fail "make static put no runbook beside the binaries"
	sed -i '/^\[fleet:vars\]/,$d' inventory
	target
	run -0 fleet
	assert_output --partial "no host failed"
	# The copy was made for both hosts (not skipped as with pf_prefix).
	[ "$(awk '/^TASK \[Copy the static tools\]/ { t = 1; next } /^TASK/ { t = 0 }
	    t && /^changed: \[h[12]\]/ { n++ } END { print n + 0 }' <<< "$output")" -eq 2 ]
	# The kit's runbook ran its own tools: a precheck and a recording of
	# the target.  Which profiles it took is pf-classify's verdict, which
	# a busy machine may change (pf-triage.bats tests that mapping with a
	# fake classifier); this test is about the kit.
	for h in h1 h2; do
		(cd "out/$h"/pf-bundle-*/ && sha256sum -c --quiet SHA256SUMS)
		grep -q "^pf-precheck -p $WPID " "out/$h"/pf-bundle-*/"$h"/commands.log
		grep -Eq "^pf-(record|offcpu) .*-p $WPID( |\$)" "out/$h"/pf-bundle-*/"$h"/commands.log
	done
	grep -q 'rec_alpha' out/fleet.svg
	[ -z "$(ls -A remote)" ]
}

# outside: every path under the test's directory but the fetch directory
# and Ansible's own temporary directories, one per line, sorted.
outside() {
	find . \( -path ./out -o -path ./ansible-local -o -path ./ansible-remote \) -prune -o -print | sort
}

@test "host names are refused unless safe file names of their own: nothing is written outside the fetch and private directories, and no host takes another's files or the fleet's" {
	# One run for both kinds of hostile name (each run costs a real
	# pf-triage on every good host).
	# A canary where ../x lands beside the fetch directory (out/../x).
	# Beside the host's private directory (remote/pf-fleet.*/../x) none:
	# pf-triage refuses an existing name, which would stop the host before
	# the fetch; the check on everything outside covers that side.
	# fleet.svg would be a host directory where the graph goes; h1.tar.gz
	# one where h1's bundle is fetched; a host named fleet had its stacks
	# in fleet.folded, which the merge writes: it is a good name now.
	mkdir x
	echo canary > x/canary
	# YAML, for names with a newline or a control character.  nl\n would
	# pass a pattern anchored with $ (Python's $ matches before a final
	# newline).
	cat > inventory <<-EOF_INV
	fleet:
	  vars:
	    ansible_connection: local
	    ansible_python_interpreter: /usr/bin/python3
	    pf_prefix: "$PF_SCRIPTS"
	  hosts:
	    h1:
	    fleet:
	    "../x":
	    "a/b":
	    "..":
	    "nl\n":
	    "c\x01d":
	    fleet.svg:
	    h1.tar.gz:
	EOF_INV
	target
	before=$(outside)
	run fleet
	[ "$status" -ne 0 ]
	# The canary survives and nothing appeared or went outside the fetch
	# directory (remote/ is empty again: the private directories are gone
	# and nothing was put beside them).
	[ "$(cat x/canary)" = canary ] || fail "the canary beside the fetch directory is gone"
	[ "$(outside)" = "$before" ] || fail "outside the fetch directory: $(diff <(echo "$before") <(outside))"
	[ -z "$(ls -A remote)" ]
	# Inside it, nothing is named after a refused host.
	[ -z "$(find out -mindepth 1 -maxdepth 1 ! -name h1 ! -name 'h1.*' ! -name 'fleet*' ! -name failed.txt)" ] ||
		fail "in the fetch directory: $(ls -A out)"
	# Each refused host is named (URL-encoded) when it is refused and in
	# the list of failed hosts, one line each.
	for h in ../x a/b .. nl%0A c%01d fleet.svg h1.tar.gz; do
		assert_output --partial "pf-fleet: host name $h refused"
		grep -qxF -- "$h refused: no safe file name (shown URL-encoded)" out/failed.txt ||
			fail "$h is not listed as refused in failed.txt"
	done
	[ "$(wc -l < out/failed.txt)" -eq 7 ]
	assert_output --partial "failed hosts: "
	# The good hosts in the same run still made the graph, in files of
	# their own: the graph and h1's bundle are files, not host directories.
	[ -f out/fleet.svg ]
	xmllint --noout out/fleet.svg
	[ -f out/h1.tar.gz ]
	[ -s out/h1.tar.gz ]
	grep -q "^h1;pffleet;" out/fleet.folded
	grep -q "^fleet;pffleet;" out/fleet.folded
}
