use strict;
my $x = ;
