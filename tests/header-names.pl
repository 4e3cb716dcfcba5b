# header-names.pl HEADER...: every name each C header declares at file
# scope, one a line: "HEADER KIND NAME", KIND one of macro, enumerator,
# tag (struct, union, enum), typedef, function (prototype or inline),
# object.  For conventions.bats: what lib/common exports carries pf_.
# It reads pf's own style (OpenBSD's), not any C: comments, strings and
# __attribute__ go first, then the bodies of structs, enums and inline
# functions, and each statement left names one thing.
use strict;
use warnings;

for my $f (@ARGV) {
	open(my $fh, '<', $f) or die "$f: $!\n";
	my $t = do { local $/; <$fh> };
	close($fh);
	(my $base = $f) =~ s,.*/,,;
	$t =~ s,/\*.*?\*/, ,gs;
	$t =~ s,//[^\n]*,,g;
	$t =~ s/"(?:[^"\\\n]|\\.)*"/""/g;
	$t =~ s/'(?:[^'\\\n]|\\.)*'/''/g;
	$t =~ s/\\\n/ /g;
	print "$base macro $1\n" while $t =~ /^[ \t]*#[ \t]*define[ \t]+(\w+)/mg;
	$t =~ s/^[ \t]*#[^\n]*//mg;
	$t =~ s/__attribute__\s*(\((?:[^()]++|(?1))*\))//g;
	while ($t =~ /\benum\s*\w*\s*(\{((?:[^{}]++|(?1))*)\})/g) {
		for (split(/,/, $2)) {
			print "$base enumerator $1\n" if /^\s*(\w+)/;
		}
	}
	print "$base tag $1\n" while $t =~ /\b(?:struct|union|enum)\s+(\w+)\s*(?=\{)/g;
	$t =~ s/(\{(?:[^{}]++|(?1))*\})/;/g;
	for my $s (split(/;/, $t)) {
		next if $s !~ /\S/ || $s =~ /^\s*(?:struct|union|enum)\s*$/;
		if ($s =~ /^\s*typedef\b/) {
			print "$base typedef $1\n"
			    if $s =~ /\(\s*\*\s*(\w+)\s*\)/ || $s =~ /(\w+)\s*(?:\[[^\]]*\]\s*)*$/;
		} elsif ($s =~ /^\s*(?:struct|union|enum)\s+(\w+)\s*$/) {
			print "$base tag $1\n";
		} elsif ($s =~ /\b([A-Za-z_]\w*)\s*\(/) {
			print "$base function $1\n";
		} elsif ($s =~ /(\w+)\s*(?:\[[^\]]*\]\s*)*(?:=.*)?$/s) {
			print "$base object $1\n";
		}
	}
}
