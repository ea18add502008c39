//go:build e2e

package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// BenchmarkFleetVsApplicationSet is issue 36's peer at 10,000 clusters: on one stack (one
// API server, one stand-in application controller), cmp-phase's agent and sidecar roll the
// fleet spec out over the clusters as in BenchmarkFleet, and Argo CD's own
// argocd-applicationset-controller rolls the same versions out over the same clusters with
// RollingSync (one ApplicationSet per shard, the same three waves). Each iteration rolls a
// new version out with both, in turn (which goes first alternates). It reports both whole
// rollouts, the step hop (last member of a step synced → first of the next starting), a
// child's synced status → its controller recording it, the peak anonymous and resident
// memory of each process and of the import floor, CPU seconds per rollout, and the ratios.
// CMP_PHASE_FLEET_CLUSTERS (default 10000) and CMP_PHASE_FLEET_SHARDS (default 1) size it.
func BenchmarkFleetVsApplicationSet(b *testing.B) {
	n, shards := envInt(b, "CMP_PHASE_FLEET_CLUSTERS", 10000), envInt(b, "CMP_PHASE_FLEET_SHARDS", 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := startFleet(ctx, b, n, shards)
	p, err := startPeer(ctx, f, n)
	if err != nil {
		b.Fatal(err)
	}
	p.limit = 30 * time.Minute
	if l := os.Getenv("CMP_PHASE_PEER_LIMIT"); l != "" {
		if p.limit, err = time.ParseDuration(l); err != nil {
			b.Fatalf("CMP_PHASE_PEER_LIMIT: %v", err)
		}
	}
	pids := map[string]int{"agent": f.agentPID, "sidecar": f.sidecarPID, "appset": p.proc.PID()}
	v := &versus{}
	began := time.Now()
	f.rollout(ctx, b, 0)
	b.Logf("first deployment, cmp-phase: %s", time.Since(began).Round(time.Second))
	first, err := p.rollout(ctx, 0)
	if v.peerCut = err != nil; v.peerCut {
		b.Logf("first deployment, ApplicationSet, not over: %v", err) // its figures are lower bounds
	}
	b.Logf("first deployment, ApplicationSet: %s", first.Round(time.Second))
	b.ResetTimer()
	for i := range b.N {
		sides := []func(){func() { v.ours(ctx, b, f, pids, i+1) }, func() { v.theirs(ctx, b, p, pids, i+1) }}
		if i%2 == 1 {
			sides[0], sides[1] = sides[1], sides[0]
		}
		sides[0]()
		sides[1]()
	}
	b.StopTimer()
	v.report(b, f, p)
}

// versus is what each side's rollouts measured.
type versus struct {
	oursTotal, peerTotal []time.Duration
	oursHops, peerHops   []time.Duration
	cpu                  map[string][]float64 // process → CPU seconds over its side's rollouts
	incomplete           int                  // the peer's rollouts cut off at CMP_PHASE_PEER_LIMIT
	// peerCut: the peer's last rollout was cut off, and the syncs it started go on into
	// the next, whose step hops are then not counted
	peerCut bool
}

func (v *versus) addCPU(name string, s float64) {
	if v.cpu == nil {
		v.cpu = map[string][]float64{}
	}
	v.cpu[name] = append(v.cpu[name], s)
}

func (v *versus) ours(ctx context.Context, b *testing.B, f *fleetStack, pids map[string]int, version int) {
	a0, s0 := cpuSeconds(pids["agent"]), cpuSeconds(pids["sidecar"])
	began := time.Now()
	f.rollout(ctx, b, version)
	took := time.Since(began)
	v.oursTotal = append(v.oursTotal, took)
	v.addCPU("agent", cpuSeconds(pids["agent"])-a0)
	v.addCPU("sidecar", cpuSeconds(pids["sidecar"])-s0)
	hops, err := f.hops(ctx)
	if err != nil {
		b.Fatal(err)
	}
	v.oursHops = append(v.oursHops, hops...)
	b.Logf("v%d cmp-phase: rollout %s, hops %v, CPU agent %.1f s sidecar %.1f s", version, took.Round(100*time.Millisecond),
		hops, v.cpu["agent"][len(v.cpu["agent"])-1], v.cpu["sidecar"][len(v.cpu["sidecar"])-1])
}

func (v *versus) theirs(ctx context.Context, b *testing.B, p *peer, pids map[string]int, version int) {
	c0 := cpuSeconds(pids["appset"])
	took, err := p.rollout(ctx, version)
	if err != nil {
		v.incomplete++ // the rollout's time is a lower bound
		b.Logf("not over: %v", err)
	}
	v.peerTotal = append(v.peerTotal, took)
	v.addCPU("appset", cpuSeconds(pids["appset"])-c0)
	hops := p.hops()
	if v.peerCut {
		b.Logf("v%d ApplicationSet: step hops not counted, the rollout before it was cut off", version)
	} else {
		v.peerHops = append(v.peerHops, hops...)
	}
	v.peerCut = err != nil
	b.Logf("v%d ApplicationSet RollingSync: rollout %s, hops %v, CPU %.1f s", version, took.Round(100*time.Millisecond),
		hops, v.cpu["appset"][len(v.cpu["appset"])-1])
}

// hops is our last rollout's step hops: the phases' members from the state, their synced
// status times from the stand-in (for a child of cmp-phase, synced is when its sync started:
// the stand-in syncs a changed child at once).
func (f *fleetStack) hops(ctx context.Context) ([]time.Duration, error) {
	cm, err := f.kube.CoreV1().ConfigMaps(framework.ArgoNamespace).Get(ctx, contract.StateConfigMap(fleetName), metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("read state: %w", err)
	}
	st, err := state.FromConfigMap(cm)
	if err != nil {
		return nil, fmt.Errorf("decode state: %w", err)
	}
	phase := map[string]int{}
	for k, ph := range st.Rollout.Phases {
		for c := range ph.Clusters {
			phase[c] = k
		}
	}
	f.rec.mu.Lock()
	synced := make(map[string]time.Time, len(f.rec.syncedAt))
	for c, at := range f.rec.syncedAt {
		synced[c] = at
	}
	f.rec.mu.Unlock()
	return stepHops(synced, synced, func(c string) int {
		if k, ok := phase[c]; ok {
			return k
		}
		return -1
	}), nil
}

// cpuSeconds is a process's utime + stime so far (/proc/<pid>/stat, at USER_HZ 100).
func cpuSeconds(pid int) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // fields from the 3rd (state) on
	if len(fields) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(fields[11], 64) // utime, field 14
	k, _ := strconv.ParseFloat(fields[12], 64) // stime, field 15
	return (u + k) / 100
}

func (v *versus) report(b *testing.B, f *fleetStack, p *peer) {
	mean := func(ds []time.Duration) float64 {
		var sum time.Duration
		for _, d := range ds {
			sum += d
		}
		return sum.Seconds() / float64(max(len(ds), 1))
	}
	ours, theirs := mean(v.oursTotal), mean(v.peerTotal)
	b.ReportMetric(ours, "cmp-phase-rollout-s")
	b.ReportMetric(theirs, "appset-rollout-s")
	b.ReportMetric(ours/theirs, "rollout-ratio")
	b.ReportMetric(float64(v.incomplete), "appset-rollouts-cut-off")
	b.ReportMetric(quantile(v.oursHops, 0.5).Seconds(), "cmp-phase-hop-p50-s")
	b.ReportMetric(quantile(v.oursHops, 0.99).Seconds(), "cmp-phase-hop-p99-s")
	b.ReportMetric(quantile(v.peerHops, 0.5).Seconds(), "appset-hop-p50-s")
	b.ReportMetric(quantile(v.peerHops, 0.99).Seconds(), "appset-hop-p99-s")
	o50, o99, _, _, on := f.rec.quantiles()
	p50, p99, pn := p.quantiles()
	b.ReportMetric(o50.Seconds(), "cmp-phase-child-p50-s")
	b.ReportMetric(o99.Seconds(), "cmp-phase-child-p99-s")
	b.ReportMetric(p50.Seconds(), "appset-child-p50-s")
	b.ReportMetric(p99.Seconds(), "appset-child-p99-s")
	f.agentRSS.report(b, "agent")
	f.sidecarRSS.report(b, "sidecar")
	f.floorRSS.report(b, "floor")
	p.rss.report(b, "appset")
	agent, sidecar, peer := f.agentRSS.get(), f.sidecarRSS.get(), p.rss.get()
	b.ReportMetric(float64(agent.anon)/float64(peer.anon), "agent/appset-anon")
	b.ReportMetric(float64(agent.anon+sidecar.anon)/float64(peer.anon), "agent+sidecar/appset-anon")
	b.ReportMetric(float64(agent.peak)/float64(peer.peak), "agent/appset-rss")
	b.ReportMetric(float64(agent.peak+sidecar.peak)/float64(peer.peak), "agent+sidecar/appset-rss")
	for name, ss := range v.cpu {
		var sum float64
		for _, s := range ss {
			sum += s
		}
		b.ReportMetric(sum/float64(len(ss)), name+"-cpu-s/rollout")
	}
	b.Logf("%d clusters, %d shards; children timed synced → recorded: cmp-phase %d, ApplicationSet %d", p.n, f.shards, on, pn)
}

// memPeak is a peakRSS's peaks, in bytes.
type memPeak struct{ peak, anon int64 }

func (p *peakRSS) get() memPeak {
	p.mu.Lock()
	defer p.mu.Unlock()
	return memPeak{peak: p.peak, anon: p.anon}
}
