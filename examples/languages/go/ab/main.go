package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	r := bufio.NewReader(os.Stdin)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	var a, b int64
	for {
		if _, err := fmt.Fscan(r, &a, &b); err != nil {
			break
		}
		fmt.Fprintln(w, a+b)
	}
}
