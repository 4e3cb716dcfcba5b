# shellcheck shell=sh
# test-names.sh: sourced by tests/run-suites.sh and tests/san-select.sh.

# test_names FILE: the names of a bats file's tests, one a line, as bats
# has them (a \" in the source is a ").
test_names() {
	sed -n 's/^@test "\(.*\)" {$/\1/p' "$1" | sed 's/\\"/"/g'
}

# test_regex: test names on stdin, one a line, as one extended regular
# expression that matches exactly those (bats -f).
test_regex() {
	sed 's/[][\.*^$+?(){}|]/\\&/g; s/^/^/; s/$/$/' | paste -sd '|' -
}
