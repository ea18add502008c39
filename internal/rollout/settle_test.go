package rollout

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

// healthy is a child that synced revision r2 at t0+20s and was reconciled at t0+30s.
func healthy() Observation {
	return Observation{Revision: "r2", SpecCompared: true, SyncStatus: "Synced", OperationPhase: "Succeeded",
		OperationFinishedAt: at(20), ReconciledAt: at(30), Health: "Healthy"}
}

func TestSettle(t *testing.T) {
	cases := []struct {
		name   string
		change func(*Observation)
		want   Verdict
	}{
		{"a child that synced the admitted revision and is Healthy is done", func(*Observation) {}, Done},
		{"stale Healthy from the old revision never passes: the live child still runs r1", func(o *Observation) { o.Revision = "r1" }, Waiting},
		{"stale Healthy never passes: Argo CD compared the old spec", func(o *Observation) { o.SpecCompared = false }, Waiting},
		{"stale Healthy never passes: the last sync was before admission", func(o *Observation) {
			o.OperationFinishedAt, o.ReconciledAt, o.SyncStatus = at(-60), at(5), "OutOfSync"
		}, Waiting},
		{"stale Healthy never passes: status not reconciled since the sync", func(o *Observation) { o.ReconciledAt = at(19) }, Waiting},
		{"a reconcile in the same second as the sync counts: Argo CD's timestamps are whole seconds", func(o *Observation) { o.ReconciledAt = at(20) }, Done},
		{"a running sync is waited for", func(o *Observation) { o.OperationPhase = "Running" }, Waiting},
		{"a failed sync fails the child", func(o *Observation) { o.OperationPhase, o.OperationMessage = "Failed", "one or more objects failed" }, Failed},
		{"a failed sync from before admission is not held against it", func(o *Observation) {
			o.OperationPhase, o.OperationFinishedAt = "Failed", at(-5)
		}, Done},
		{"a sync Argo CD could not run errors the child: we could not tell, not a gate's no", func(o *Observation) {
			o.OperationPhase, o.OperationMessage = "Error", "rpc error: repository not accessible"
		}, Errored},
		{"Progressing is waited for", func(o *Observation) { o.Health = "Progressing" }, Waiting},
		{"Degraded after the sync fails the child", func(o *Observation) { o.Health = "Degraded" }, Failed},
		{"OutOfSync is waited for", func(o *Observation) { o.SyncStatus = "OutOfSync" }, Waiting},
		{"a spec that needs no sync is done once compared after admission", func(o *Observation) {
			o.OperationPhase, o.OperationFinishedAt = "", time.Time{}
		}, Done},
		{"and not before", func(o *Observation) {
			o.OperationPhase, o.OperationFinishedAt, o.ReconciledAt = "", time.Time{}, at(-1)
		}, Waiting},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := healthy()
			c.change(&o)
			got, why := Settle(o, "r2", t0)
			if got != c.want {
				t.Fatalf("got %s (%s), want %s", got, why, c.want)
			}
			if why == "" {
				t.Fatal("every verdict says why")
			}
		})
	}
}

// TestSettleOwnSync: the sync the agent starts at admission is known by its marker, so
// whole-second timestamps cannot hide it when it ends within the second of admission.
func TestSettleOwnSync(t *testing.T) {
	admitted := t0.Add(700 * time.Millisecond)
	mine := Marker("r2", admitted)
	cases := []struct {
		name   string
		change func(*Observation)
		want   Verdict
	}{
		{"the agent's sync failed within the second of admission: Failed, not ignored", func(o *Observation) {
			o.OperationMarker, o.OperationPhase, o.OperationFinishedAt, o.SyncStatus = mine, "Failed", t0, "OutOfSync"
		}, Failed},
		{"someone else's failed sync in that second, before admission, is not held against it", func(o *Observation) {
			o.OperationPhase, o.OperationFinishedAt, o.SyncStatus = "Failed", t0, "OutOfSync"
		}, Waiting},
		{"the agent's sync succeeded within the second and the status was reconciled in it", func(o *Observation) {
			o.OperationMarker, o.OperationFinishedAt, o.ReconciledAt = mine, t0, t0
		}, Done},
		{"a marker of another admission is not ours", func(o *Observation) {
			o.OperationMarker, o.OperationPhase, o.OperationFinishedAt, o.SyncStatus = Marker("r2", t0), "Failed", t0, "OutOfSync"
		}, Waiting},
		{"a requested sync not started yet is waited for, even when the status says Synced", func(o *Observation) {
			o.OperationPending = true
		}, Waiting},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := healthy()
			c.change(&o)
			if got, why := Settle(o, "r2", admitted); got != c.want {
				t.Fatalf("got %s (%s), want %s", got, why, c.want)
			}
		})
	}
}
