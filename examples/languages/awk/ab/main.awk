NF >= 2 { print $1 + $2 }
