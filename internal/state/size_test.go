package state

import (
	"fmt"
	"testing"
	"time"
)

// withHistory fills bigState's rollout the way a long 10,000-cluster rollout leaves it: every
// child admitted and settled with a reason, a per-cluster check in the ledger for each, and a
// full history.
func withHistory(s *State) *State {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for i := range s.Rollout.Phases {
		p := &s.Rollout.Phases[i]
		p.Status = PhaseSucceeded
		p.Admitted = p.Members
		p.Clusters = map[string]ClusterState{}
		p.Hooks = map[string]HookRun{}
		for j, c := range p.Admitted {
			t := at.Add(time.Duration(i*3600+j) * time.Second)
			p.Clusters[c] = ClusterState{Status: ClusterDone, AdmittedAt: t, SettledAt: t.Add(47 * time.Second)}
			done := t.Add(90 * time.Second)
			p.Hooks["check/smoke/"+c] = HookRun{Kind: "check", Name: "smoke", Cluster: c, Status: HookSucceeded,
				Attempts: 1, StartedAt: t.Add(50 * time.Second), FinishedAt: &done, Duration: 40 * time.Second, Message: "HTTP 200"}
		}
	}
	for i := 0; i < MaxHistory; i++ {
		s.Rollout.Record(at.Add(time.Duration(i)*time.Minute), "ClusterFailed",
			fmt.Sprintf("payments-api-prod-eu-west-1-%05d: health Degraded (Deployment payments-api: 0/3 replicas available)", i))
	}
	return s
}

// TestTenThousandClustersWithHistoryFit is issue 15's size bound: the state of 10,000
// clusters with its history, every one admitted with a per-cluster check, stays within Budget (640 KiB).
func TestTenThousandClustersWithHistoryFit(t *testing.T) {
	b, err := Encode(withHistory(bigState(10000)))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("10,000 clusters with history: %d bytes compressed (budget %d)", len(b), Budget)
	if len(b) > 640<<10 {
		t.Fatalf("%d bytes, over 640 KiB", len(b))
	}
}
