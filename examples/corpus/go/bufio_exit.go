package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	var a, b int64
	fmt.Fscan(in, &a, &b)
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(out, a+b)
	out.Flush()
	os.Exit(0)
}
