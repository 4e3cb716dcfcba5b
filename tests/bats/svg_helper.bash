# shellcheck shell=bash
# svg_helper.bash: reading pf-svg's documents in tests (pf-svg.bats and
# pf-svg-live.bats load it after test_helper).

# geom NAME FILE: "x y width height" of the frame whose tooltip starts "NAME (".
geom() {
	grep -F "<title>$1 (" "$2" | sed -n 's/.*<rect x="\([^"]*\)" y="\([^"]*\)" width="\([^"]*\)" height="\([^"]*\)".*/\1 \2 \3 \4/p'
}

# tip NAME FILE: the tooltip of the frame named NAME.
tip() {
	grep -oF "<title>$1 (" "$2" >/dev/null || return 1
	grep -o "<title>$1 ([^<]*</title>" "$2" | sed 's/<[/]*title>//g'
}

# fill NAME FILE: the rect fill of the frame named NAME.
fill() {
	grep -F "<title>$1 (" "$2" | sed -n 's/.*fill="\([^"]*\)".*/\1/p'
}

# xml_ok FILE: well-formed, and no namespace error either (xmllint exits 0
# on an unbound prefix, which a browser refuses to render).
xml_ok() {
	run xmllint --noout "$1"
	if [ "$status" -ne 0 ] || [ -n "$output" ]; then
		fail "not well-formed XML: $output"
	fi
}

# heading ID FILE: the text of the <text id="ID"> element (title, subtitle).
heading() {
	sed -n "s/.*<text id=\"$1\"[^>]*>\([^<]*\)<.*/\1/p" "$2"
}

