<?php
while (($line = fgets(STDIN)) !== false) {
    $p = preg_split('/\s+/', trim($line));
    if (count($p) < 2) {
        continue;
    }
    echo intval($p[0]) + intval($p[1]), "\n";
}
