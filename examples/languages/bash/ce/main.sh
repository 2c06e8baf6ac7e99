if [ 1 -eq 1 ]; then
    echo "no fi"
