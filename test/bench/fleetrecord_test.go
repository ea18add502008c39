//go:build e2e

package bench

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// fleetRecord is what the fleet benchmark measures: when each child's status was written
// and when the state first showed it done, how long the sidecar's renders took, and the
// agent's and sidecar's peak memory.
type fleetRecord struct {
	mu       sync.Mutex
	syncedAt map[string]time.Time // child → when its synced, Healthy status was written
	counted  map[string]bool      // children whose latency this rollout counted
	latency  []time.Duration      // status written → the state says done
	slowest  []string             // the slowest few, for the log
	slowDur  []time.Duration      // their latencies
	renders  []time.Duration      // one shard's render over the socket
}

func newFleetRecord() *fleetRecord {
	return &fleetRecord{syncedAt: map[string]time.Time{}, counted: map[string]bool{}}
}

func (r *fleetRecord) synced(child string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.syncedAt[child] = at
}

func (r *fleetRecord) rendered(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.renders = append(r.renders, d)
}

// newRollout forgets which children were counted: each rollout counts each child once.
func (r *fleetRecord) newRollout() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counted = map[string]bool{}
}

// onState counts, for every child the state shows done for the first time in this
// rollout, the time since its status was written.
func (r *fleetRecord) onState(st *state.State, at time.Time) {
	if st.Rollout == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ph := range st.Rollout.Phases {
		for c, cs := range ph.Clusters {
			written, ok := r.syncedAt[c]
			if cs.Status != state.ClusterDone || r.counted[c] || !ok || written.Before(cs.AdmittedAt.Add(-time.Second)) {
				continue
			}
			r.counted[c] = true
			r.latency = append(r.latency, at.Sub(written))
			if d := at.Sub(written); d > time.Second {
				r.slow(d, fmt.Sprintf("%s (%s): status %s, state gen %d at %s (%s, admitted %s)", c, ph.Name,
					written.Format("15:04:05.000"), st.Generation, at.Format("15:04:05.000"), d.Round(time.Millisecond), cs.AdmittedAt.Format("15:04:05")))
			}
		}
	}
}

// slow keeps the ten slowest children for the log, the slowest first.
func (r *fleetRecord) slow(d time.Duration, line string) {
	i, _ := slices.BinarySearchFunc(r.slowDur, d, func(a, b time.Duration) int { return cmp.Compare(b, a) })
	r.slowDur, r.slowest = slices.Insert(r.slowDur, i, d), slices.Insert(r.slowest, i, line)
	if len(r.slowest) > 10 {
		r.slowDur, r.slowest = r.slowDur[:10], r.slowest[:10]
	}
}

func (r *fleetRecord) quantiles() (lat50, lat99, render50, render99 time.Duration, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return quantile(r.latency, 0.5), quantile(r.latency, 0.99), quantile(r.renders, 0.5), quantile(r.renders, 0.99), len(r.latency)
}

// peakRSS samples a process's resident memory until ctx ends; report reports its peaks.
type peakRSS struct {
	mu   sync.Mutex
	peak int64 // bytes: VmHWM, file-backed pages (the binary's code) included
	anon int64 // bytes: the largest RssAnon seen (heap, stacks: what the process allocated)
	file int64 // bytes: the largest RssFile seen (the binary's code and read-only data)
	pmd  int64 // bytes: the largest FilePmdMapped seen (file pages mapped 2 MiB at a time)
}

func (p *peakRSS) sample(ctx context.Context, pid int) {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		hwm, err1 := procStatus(pid, "status", "VmHWM:")
		anon, err2 := procStatus(pid, "status", "RssAnon:")
		file, err3 := procStatus(pid, "status", "RssFile:")
		pmd, err4 := procStatus(pid, "smaps_rollup", "FilePmdMapped:")
		if err1 == nil && err2 == nil && err3 == nil {
			p.mu.Lock()
			p.peak, p.anon, p.file = max(p.peak, hwm*1024), max(p.anon, anon*1024), max(p.file, file*1024)
			if err4 == nil {
				p.pmd = max(p.pmd, pmd*1024)
			}
			p.mu.Unlock()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// report reports the peak (VmHWM), anonymous and file-backed memory as name-*-MiB, and how
// much of the file-backed memory the kernel mapped in 2 MiB pages (a kernel that keeps the
// page cache in large folios maps a whole 2 MiB of the binary for one touched page: this
// VM's does).
func (p *peakRSS) report(b *testing.B, name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for unit, v := range map[string]int64{"peak": p.peak, "anon": p.anon, "file": p.file, "file-2MiB-mapped": p.pmd} {
		b.ReportMetric(float64(v)/(1<<20), name+"-"+unit+"-MiB")
	}
}

// procStatus reads one field of /proc/<pid>/<name> (status or smaps_rollup), in kB.
func procStatus(pid int, name, field string) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/%s", pid, name))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("%s not in /proc/%d/%s", field, pid, name)
}

// hist is what a histogram of the agent says: observations, their mean and the upper bound
// of the bucket holding the 99th percentile.
type hist struct {
	n         uint64
	mean, p99 time.Duration
}

// decideTimes is the agent's cmp_phase_decide_seconds histogram.
func decideTimes(fams map[string]*dto.MetricFamily) (hist, error) {
	fam, ok := fams["cmp_phase_decide_seconds"]
	if !ok || len(fam.GetMetric()) == 0 {
		return hist{}, fmt.Errorf("scrape agent: no cmp_phase_decide_seconds")
	}
	return histOf(fam.GetMetric()[0].GetHistogram()), nil
}

// passTimes is the agent's cmp_phase_pass_seconds histogram by step.
func passTimes(fams map[string]*dto.MetricFamily) map[string]hist {
	out := map[string]hist{}
	for _, m := range fams["cmp_phase_pass_seconds"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "step" {
				out[l.GetValue()] = histOf(m.GetHistogram())
			}
		}
	}
	return out
}

// scrape reads the agent's metrics.
func scrape(ctx context.Context, metricsURL string) (map[string]*dto.MetricFamily, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metricsURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape agent: %w", err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("scrape agent: %w", err)
	}
	return fams, nil
}

func histOf(h *dto.Histogram) hist {
	n := h.GetSampleCount()
	if n == 0 {
		return hist{}
	}
	return hist{n: n, mean: time.Duration(h.GetSampleSum() / float64(n) * float64(time.Second)), p99: bucketQuantile(h, 0.99)}
}

func bucketQuantile(h *dto.Histogram, q float64) time.Duration {
	want := uint64(math.Ceil(q * float64(h.GetSampleCount())))
	for _, b := range h.GetBucket() {
		if b.GetCumulativeCount() >= want {
			return time.Duration(b.GetUpperBound() * float64(time.Second))
		}
	}
	return time.Duration(math.MaxInt64) // beyond the last bucket
}

// goDebug passes CMP_PHASE_FLEET_GODEBUG to the agent as GODEBUG (e.g. gctrace=1: the live
// heap after each collection, in the agent's log).
func goDebug() []string {
	if v := os.Getenv("CMP_PHASE_FLEET_GODEBUG"); v != "" {
		return []string{"GODEBUG=" + v}
	}
	return nil
}

// profile saves the agent's pprof profile at path under CMP_PHASE_FLEET_PROFILES, when set.
func (f *fleetStack) profile(ctx context.Context, b *testing.B, name, path string) {
	dir := os.Getenv("CMP_PHASE_FLEET_PROFILES")
	if dir == "" {
		return
	}
	url := strings.TrimSuffix(f.metricsURL, "/metrics") + "/debug/pprof/" + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		b.Logf("profile %s: %v", name, err)
		return
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Logf("profile %s: %v", name, err)
		return
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, name), body, 0o644)
	}
	if err != nil {
		b.Logf("profile %s: %v", name, err)
	}
}
