package rerender

import (
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// TestDecide walks the re-render protocol through every case a pass can meet.
func TestDecide(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	wait := 30 * time.Second
	// idle is an automated parent that rendered and synced generation 4 and runs nothing,
	// while the state's view is 5.
	idle := View{PhaseGen: 4, PlanGen: 4, View: 5, Compared: 4, Synced: 4, Automated: true, Before: -1}
	cases := []struct {
		name   string
		change func(*View)
		want   Decision
	}{
		{"a new view: point PHASE_GEN at it and apply the moved children at once", func(*View) {},
			Decision{SetPhaseGen: true, Enact: true, Asked: now, Requeue: now.Add(wait)}},
		{"a parent syncing may still apply an older render: the parent moves the children", func(v *View) { v.Busy, v.BusyGen = true, 4 },
			Decision{SetPhaseGen: true, Asked: now, Requeue: now.Add(wait)}},
		{"a parent syncing a render of unknown generation: the same", func(v *View) { v.Busy = true },
			Decision{SetPhaseGen: true, Asked: now, Requeue: now.Add(wait)}},
		{"a self-healing parent syncing its render of the view applies the same bytes: apply too", func(v *View) {
			v.SelfHeal, v.PhaseGen, v.Compared, v.Busy, v.BusyGen, v.Asked = true, 5, 5, true, 5, now.Add(-time.Second)
		}, Decision{Enact: true, Asked: now.Add(-time.Second), Requeue: now.Add(wait - time.Second)}},
		{"a parent that has not synced the generation it names may still apply it", func(v *View) { v.Synced = 3 },
			Decision{SetPhaseGen: true, Asked: now, Requeue: now.Add(wait)}},
		{"a self-healing parent heals to what it compared: wait until it compared the view", func(v *View) { v.SelfHeal = true },
			Decision{SetPhaseGen: true, Asked: now, Requeue: now.Add(wait)}},
		{"a self-healing parent that compared the view: apply", func(v *View) {
			v.SelfHeal, v.PhaseGen, v.Compared, v.Asked = true, 5, 5, now.Add(-time.Second)
		}, Decision{Enact: true, Asked: now.Add(-time.Second), Requeue: now.Add(wait - time.Second)}},
		{"a parent without automated sync: a person's sync enacts the phase (the preview)", func(v *View) { v.Automated = false },
			Decision{SetPhaseGen: true, Asked: now, Requeue: now.Add(wait)}},
		{"… and while it shows the change, nobody asks again", func(v *View) {
			v.Automated, v.PhaseGen, v.OutOfSync, v.Asked = false, 5, true, now.Add(-time.Hour)
		}, Decision{Asked: now.Add(-time.Hour), Requeue: now.Add(wait)}},
		{"the render arrived: confirmed, and the ask is forgotten", func(v *View) {
			v.PhaseGen, v.PlanGen, v.Compared, v.Synced, v.Asked = 5, 5, 5, 5, now.Add(-time.Second)
		}, Decision{Confirmed: true, Enact: true}},
		{"not arrived yet: wait for it until confirmAfter", func(v *View) {
			v.PhaseGen, v.Asked = 5, now.Add(-10*time.Second)
		}, Decision{Asked: now.Add(-10 * time.Second), Requeue: now.Add(20 * time.Second)}},
		{"not arrived in confirmAfter: ask again", func(v *View) {
			v.PhaseGen, v.Asked = 5, now.Add(-wait)
		}, Decision{AskAgain: true, Asked: now, Requeue: now.Add(wait)}},
		{"a fresh agent counts from now", func(v *View) { v.PhaseGen = 5 },
			Decision{Asked: now, Requeue: now.Add(wait)}},
		{"asked by this agent from the generation the parent synced (it was syncing then): apply now", func(v *View) {
			v.PhaseGen, v.Before, v.Asked = 5, 4, now.Add(-time.Second)
		}, Decision{Enact: true, Asked: now.Add(-time.Second), Requeue: now.Add(wait - time.Second)}},
		{"a generation named in between may still be compared and synced: the parent moves them", func(v *View) {
			v.PhaseGen, v.Before, v.Synced, v.Asked = 5, 4, 3, now.Add(-time.Second)
		}, Decision{Asked: now.Add(-time.Second), Requeue: now.Add(wait - time.Second)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := idle
			c.change(&v)
			if got := Decide(v, now, wait); got != c.want {
				t.Fatalf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// TestViewOf reads the protocol's inputs off a parent as Argo CD writes it.
func TestViewOf(t *testing.T) {
	src := func(gen string) v1alpha1.ApplicationSource {
		return v1alpha1.ApplicationSource{Plugin: &v1alpha1.ApplicationSourcePlugin{Env: v1alpha1.Env{{Name: "OTHER", Value: "x"}, {Name: contract.EnvPhaseGen, Value: gen}}}}
	}
	spec := src("7")
	parent := &v1alpha1.Application{Spec: v1alpha1.ApplicationSpec{Source: &spec,
		SyncPolicy: &v1alpha1.SyncPolicy{Automated: &v1alpha1.SyncPolicyAutomated{SelfHeal: new(true)}}}}
	parent.Status.Sync.ComparedTo.Source = src("6")
	parent.Status.Sync.Status = v1alpha1.SyncStatusCodeOutOfSync
	parent.Status.OperationState = &v1alpha1.OperationState{Phase: "Running", SyncResult: &v1alpha1.SyncOperationResult{Source: src("5")}}
	got := ViewOf(parent, 4, 8, Asked{})
	want := View{PhaseGen: 7, PlanGen: 4, View: 8, Compared: 6, Synced: 5, Busy: true, BusyGen: 5, Automated: true, SelfHeal: true, OutOfSync: true, Before: -1}
	if got != want {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	parent.Status.OperationState.Phase = "Succeeded"
	if ViewOf(parent, 4, 8, Asked{}).Busy {
		t.Fatal("a finished operation is not busy")
	}
	s8 := src("8")
	parent.Operation = &v1alpha1.Operation{Sync: &v1alpha1.SyncOperation{Source: &s8}}
	if v := ViewOf(parent, 4, 8, Asked{}); !v.Busy || v.BusyGen != 8 {
		t.Fatalf("a requested operation is busy, with the generation its source names: %+v", v)
	}
	if v := ViewOf(nil, 4, 8, Asked{}); v.Automated || v.PhaseGen != 0 {
		t.Fatalf("a missing parent is known for nothing: %+v", v)
	}
	mem := Asked{At: time.Now(), Set: 7, Before: 6}
	if v := ViewOf(parent, 4, 8, mem); v.Before != 6 {
		t.Fatalf("the agent remembers what the parent named before its own PHASE_GEN: %+v", v)
	}
	mem.Set = 9
	if v := ViewOf(parent, 4, 8, mem); v.Before != -1 {
		t.Fatalf("someone else set PHASE_GEN since: nothing is known: %+v", v)
	}
}
