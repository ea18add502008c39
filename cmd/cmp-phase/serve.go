package main

import (
	"context"
	"fmt"
	"io"
)

func runServe(ctx context.Context, args []string, stderr io.Writer) int {
	fmt.Fprintln(stderr, "cmp-phase serve: not built yet")
	return 1
}
