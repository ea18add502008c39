package tmpl

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// maxBombRSS is how much more peak resident memory a process that runs one bomb may reach
// than one that renders an ordinary template: an execution's bounds are 16 MiB of values
// (a single call may take twice that while it builds) and 1 MiB of output, and the
// garbage of both until the collector runs.
const maxBombRSS = 64 << 20

// TestBombsInAChildProcess runs each bomb in a process of its own — this test binary,
// re-executed — and measures what the operating system saw: the wall time to its end and
// its peak resident memory (rusage). An unbounded render would run on or be killed for
// memory; a bounded one ends within its time bound, small.
func TestBombsInAChildProcess(t *testing.T) {
	if name := os.Getenv("CMP_PHASE_BOMB"); name != "" {
		src, ok := bombs[name]
		if !ok {
			src = "{{ .name | upper }}"
		}
		fmt.Println(runBomb(context.Background(), src))
		return
	}
	if testing.Short() {
		t.Skip("re-executes the test binary once per bomb")
	}
	_, base := runChild(t, "ordinary")
	for name := range bombs {
		t.Run(name, func(t *testing.T) {
			wall, rss := runChild(t, name)
			if wall > DefaultBounds.Time+3*time.Second || rss-base > maxBombRSS {
				t.Fatalf("%s: %s wall, %d MiB peak RSS over the %d MiB of an ordinary render (bounds: %s, %d MiB)",
					name, wall, (rss-base)>>20, base>>20, DefaultBounds.Time, maxBombRSS>>20)
			}
			t.Logf("%s: %s wall, %d MiB peak RSS over an ordinary render's", name, wall.Round(time.Millisecond), (rss-base)>>20)
		})
	}
}

// runChild renders one bomb in a re-executed test binary: its wall time and peak RSS.
func runChild(t *testing.T, name string) (time.Duration, int64) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBombsInAChildProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CMP_PHASE_BOMB="+name)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	return wall, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
}
