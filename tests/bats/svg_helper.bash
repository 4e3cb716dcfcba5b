# shellcheck shell=bash
# svg_helper.bash: reading pf-svg's documents in tests (pf-svg.bats and
# pf-svg-live.bats load it after test_helper).

# draw FILE ARGS...: pf-svg ARGS, which must exit 0; its output (also in
# $output, as run leaves it) is written to FILE.
draw() {
	local out=$1
	shift
	run -0 pf-svg "$@"
	printf '%s\n' "$output" >"$out"
}

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


# frame_totals FILE: for each depth and name, the samples of the frames
# drawn there added up, one "depth<TAB>name<TAB>samples" line each, sorted
# (the root is depth 0, "all"; default --height and no --inverted).  A
# frame's samples are its data-n; its name is its tooltip before the last
# " (", unescaped.
frame_totals() {
	awk -v fh=16 '
	/^<[ga] data-s="/ {
		n = $0; sub(/^[^>]*data-n="/, "", n); sub(/".*/, "", n)
		t = $0; sub(/^[^>]*><title>/, "", t); sub(/<\/title>.*/, "", t)
		sub(/ \([^(]*\)$/, "", t)
		gsub(/&lt;/, "<", t); gsub(/&gt;/, ">", t); gsub(/&amp;/, "\\&", t)
		y = $0; sub(/.*<rect x="[^"]*" y="/, "", y); sub(/".*/, "", y)
		k++; ys[k] = y + 0; names[k] = t; ns[k] = n
		if (k == 1 || y + 0 > ymax) ymax = y + 0
	}
	END {
		for (i = 1; i <= k; i++)
			tot[(ymax - ys[i]) / fh "\t" names[i]] += ns[i]
		for (key in tot)
			printf "%s\t%.0f\n", key, tot[key]
	}' "$1" | sort
}
