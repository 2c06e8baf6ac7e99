use strict;
use warnings;
while (my $line = <STDIN>) {
    my @p = split ' ', $line;
    next unless @p >= 2;
    print $p[0] + $p[1], "\n";
}
