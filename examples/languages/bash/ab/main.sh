while read -r a b; do
    if [ -n "$b" ]; then echo $((a + b)); fi
done
