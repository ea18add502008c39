//go:build e2e

// Package bench measures cmp-phase end to end against Argo CD's own RollingSync, side by
// side on one real stack (issue 12): the same fleet, the same steps, the same kind of
// commit, announced by Argo CD's git webhook or noticed by polling. It does nothing unless
// run with -bench (see docs/performance.md for the commands).
package bench

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/cmp-phase/cmp-phase/test/framework"
)

// bins are cmp-phase and the agent, built from this tree when a benchmark runs; floorBin
// is BenchmarkFleet's memory peer (test/bench/floor), built beside them.
var (
	bins     framework.Binaries
	floorBin string
)

func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		os.Exit(m.Run()) // no benchmark asked for: no stack, nothing to build
	}
	var err error
	if bins, err = framework.BuildBinaries(); err == nil {
		if floorBin, err = framework.BuildProject(bins.Dir, "./test/bench/floor", "e2e"); err != nil {
			_ = os.RemoveAll(bins.Dir)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(bins.Dir)
	os.Exit(code)
}
