//go:build e2e

package bench

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// BenchmarkSideBySide rolls a commit to the workload out over six loopback clusters in
// three steps (dev → staging → prod, 50% at a time) with Argo CD's own RollingSync, with
// cmp-phase in both dialects and with the floor (a driver that syncs each batch through
// argocd-server's API the moment the one before is done: floor_test.go), one after the
// other in every iteration, on one real stack.
// Sub-benchmarks: refresh (the commit announced by Argo CD's git webhook) and polling (Argo
// CD notices it by itself). It prints, per mode, each setup's total (commit → every cluster
// runs it, Synced and Healthy), first sync, hops, out-of-order runs and redundant syncs, and
// the ratios to RollingSync's and the floor's median; and the timeline of one hop. The
// setups run in turn, each iteration starting one later (rs prs pph fl, prs pph fl rs, …):
// the one that runs third measured ≈ 5% slower in a fixed order, so use a multiple of four
// iterations.
//
//	go test -tags e2e ./test/bench -run XXX -bench SideBySide -benchtime 9x -timeout 3h
//
// CMP_PHASE_BENCH_RESYNC (default 10s) and CMP_PHASE_BENCH_JITTER (default Argo CD's 60s)
// set the application controller's --app-resync and --app-resync-jitter;
// CMP_PHASE_BENCH_MODES (default "refresh,polling") picks the modes;
// CMP_PHASE_BENCH_WARM=0 runs the agent without argocd-server's API (no manifest warming).
func BenchmarkSideBySide(b *testing.B) {
	resync := durationEnv(b, "CMP_PHASE_BENCH_RESYNC", 10*time.Second)
	jitter := durationEnv(b, "CMP_PHASE_BENCH_JITTER", 0)
	s := startStack(b, resync, jitter)
	for _, mode := range modes() {
		b.Run(mode, func(b *testing.B) {
			runs := map[string][]result{}
			var last map[string]*record
			for i := 0; b.Loop(); i++ {
				last = map[string]*record{}
				for _, st := range rotated(s.setups, i) {
					r := s.run(b, st, mode)
					runs[st.name] = append(runs[st.name], r.result())
					last[st.name] = r
				}
			}
			jit := "60s (Argo CD's default)"
			if jitter > 0 {
				jit = jitter.String()
			}
			title := fmt.Sprintf("mode %s, --app-resync %s, --app-resync-jitter %s, %s, %d CPUs, %s", mode, resync, jit,
				time.Now().Format(time.DateOnly), runtime.NumCPU(), runtime.GOARCH)
			sums := report(os.Stdout, title, s.setups, runs)
			for _, st := range s.setups {
				b.ReportMetric(quantile(sums[st.name].totals, 0.5).Seconds(), st.name+"-total-s")
			}
			for _, st := range s.setups {
				switch {
				case st.phased():
					timelines(os.Stdout, s.env, last[st.name], s.agent.LogPath)
				case st.kind == "floor":
					timelines(os.Stdout, s.env, last[st.name], "") // the agent has no part in it
				}
			}
		})
	}
}

// rotated is the setups in the order iteration i runs them: each takes every position in
// turn, so no setup is always the one that runs after another's rollout.
func rotated(setups []*setup, i int) []*setup {
	k := i % len(setups)
	return append(append([]*setup{}, setups[k:]...), setups[:k]...)
}

func modes() []string {
	if v := os.Getenv("CMP_PHASE_BENCH_MODES"); v != "" {
		return strings.Split(v, ",")
	}
	return []string{"refresh", "polling"}
}

func durationEnv(b *testing.B, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		b.Fatalf("%s=%q: %v", name, v, err)
	}
	return d
}
