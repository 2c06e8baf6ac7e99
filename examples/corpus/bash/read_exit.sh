read -r a b
echo $((a + b))
exit 0
