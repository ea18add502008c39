package agent

import (
	"context"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/status"
)

func TestTheParentCarriesTheRolloutsStateWrittenOnlyWhenItChanges(t *testing.T) {
	ctx := context.Background()
	parent := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: testNS, Annotations: map[string]string{"keep": "me"}}}
	f := newFakeAgent(t, []runtime.Object{parent})
	p := &pass{plan: &plan.Plan{Rollout: "web", Parent: "web"}, parent: parent, log: f.log}
	st := &state.State{Schema: state.Schema, Generation: 3, Deployed: "r1", Rollout: &state.Rollout{
		Revision: "r2", Status: state.RolloutProgressing, StartedAt: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC),
		Phases: []state.PhaseState{{Name: "dev", Status: state.PhaseAdmitting, Members: []string{"a", "b"}, Admitted: []string{"a"}}}}}

	f.annotateParent(ctx, p, st, status.Parent(p.plan.Rollout, st))
	got := getApp(t, f, "web").Annotations
	if got[contract.ParentStatus] != "Progressing" || got[contract.ParentPhase] != "dev" || got[contract.ParentAdmitted] != "1/2" ||
		got[contract.ParentWaitingFor] != "sync" || got[contract.ParentRolloutID] != "r2@2026-11-22T10:00:00Z" || got["keep"] != "me" {
		t.Fatalf("annotations %v", got)
	}
	f.annotateParent(ctx, p, st, status.Parent(p.plan.Rollout, st)) // the cache has not shown the patch yet: nothing new to say
	p.parent = getApp(t, f, "web")
	f.annotateParent(ctx, p, st, status.Parent(p.plan.Rollout, st))
	if n := writes(f.argo.Actions(), "applications"); n != 1 {
		t.Fatalf("one patch for one change, got %d", n)
	}
	st.Rollout.Status = state.RolloutStopped
	f.annotateParent(ctx, p, st, status.Parent(p.plan.Rollout, st))
	got = getApp(t, f, "web").Annotations
	if n := writes(f.argo.Actions(), "applications"); n != 2 || got[contract.ParentStatus] != "Stopped" {
		t.Fatalf("a change is written: %d writes, %v", n, got)
	}
	if _, ok := got[contract.ParentWaitingFor]; ok {
		t.Fatalf("a stopped rollout waits for nothing: the key goes: %v", got)
	}
}
