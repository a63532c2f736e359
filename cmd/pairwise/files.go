package main

import (
	"fmt"
	"io"
	"os"
)

// stdin is the standard input of the commands; tests replace it.
var stdin io.Reader = os.Stdin

// defaultNames returns x1..xn, the names of variables without a header.
func defaultNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("x%d", i+1)
	}
	return names
}
