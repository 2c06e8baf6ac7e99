{ print $1 + $2; exit }
END { }
