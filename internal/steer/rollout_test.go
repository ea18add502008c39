package steer

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/statestore"
)

const ns = "argocd"

var (
	now    = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	phases = []string{"dev", "staging", "prod"}
)

// steered is a rollout "web" whose state ConfigMap holds data (nil: no ConfigMap), on a
// fake API server.
func steered(t *testing.T, data map[string]string) (Rollout, *fake.Clientset) {
	t.Helper()
	kc := fake.NewClientset()
	if data != nil {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: contract.StateConfigMap("web"), Namespace: ns, ResourceVersion: "1"}, Data: data}
		if err := state.ToConfigMap(&state.State{Schema: state.Schema, Generation: 4}, cm); err != nil {
			t.Fatal(err)
		}
		if err := kc.Tracker().Add(cm); err != nil {
			t.Fatal(err)
		}
	}
	kc.ClearActions()
	store := &statestore.Store{ConfigMaps: kc.CoreV1(), Namespace: ns, Name: contract.StateConfigMap("web")}
	return Rollout{Name: "web", Store: store, Phases: phases, By: "alice", Reason: "error rate up", Now: func() time.Time { return now }}, kc
}

func stateData(t *testing.T, kc *fake.Clientset) map[string]string {
	t.Helper()
	cm, err := kc.CoreV1().ConfigMaps(ns).Get(context.Background(), contract.StateConfigMap("web"), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm.Data
}

func writes(kc *fake.Clientset) int {
	n := 0
	for _, a := range kc.Actions() {
		if a.GetVerb() == "update" || a.GetVerb() == "create" || a.GetVerb() == "patch" {
			n++
		}
	}
	return n
}

// TestEachVerbWritesItsKeyWithWhoAndWhy: every verb is one write of its key, with by and
// reason, and keeps the agent's keys.
func TestEachVerbWritesItsKeyWithWhoAndWhy(t *testing.T) {
	ctx := context.Background()
	cases := map[string]struct {
		verb func(Rollout) error
		want map[string]string
	}{
		"pause":           {func(r Rollout) error { return r.Pause(ctx, "") }, map[string]string{"pause": "error rate up"}},
		"pause until":     {func(r Rollout) error { return r.Pause(ctx, "2026-11-22T04:00:00Z") }, map[string]string{"pause": "error rate up", "pause-until": "2026-11-22T04:00:00Z"}},
		"resume":          {func(r Rollout) error { return r.Resume(ctx) }, map[string]string{"resume": "error rate up"}},
		"abort":           {func(r Rollout) error { return r.Abort(ctx) }, map[string]string{"abort": "error rate up"}},
		"rollback":        {func(r Rollout) error { return r.Rollback(ctx) }, map[string]string{"rollback": "error rate up"}},
		"approve":         {func(r Rollout) error { return r.Approve(ctx, "prod") }, map[string]string{"approve": "prod"}},
		"promote":         {func(r Rollout) error { return r.Promote(ctx, "staging") }, map[string]string{"promote": "staging"}},
		"jump":            {func(r Rollout) error { return r.Jump(ctx, "prod", false) }, map[string]string{"jump": "prod"}},
		"jump with force": {func(r Rollout) error { return r.Jump(ctx, "prod", true) }, map[string]string{"jump": "prod", "force": "true"}},
		"skip":            {func(r Rollout) error { return r.Skip(ctx, "web-prod-2", "web-dev-1") }, map[string]string{"skip": "web-dev-1,web-prod-2"}},
		"confirm-removal": {func(r Rollout) error { return r.ConfirmRemoval(ctx, "all") }, map[string]string{"confirm-removal": "all"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r, kc := steered(t, map[string]string{"status": "the agent's"})
			if err := c.verb(r); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"status": "the agent's", "generation": "4", "by": "alice", "reason": "error rate up"}
			maps.Copy(want, c.want)
			if got := stateData(t, kc); !maps.Equal(got, want) || writes(kc) != 1 {
				t.Fatalf("%d writes, data %v, want %v", writes(kc), got, want)
			}
		})
	}
}

// TestPauseAndJumpOwnTheirModifiers: a pause without an end removes the one an earlier pause
// set; a jump without force removes an earlier force.
func TestPauseAndJumpOwnTheirModifiers(t *testing.T) {
	ctx := context.Background()
	r, kc := steered(t, map[string]string{"pause": "x", "pause-until": "2026-11-22T05:00:00Z"})
	if err := r.Pause(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if _, ok := stateData(t, kc)["pause-until"]; ok {
		t.Fatalf("pause-until stays: %v", stateData(t, kc))
	}
	r, kc = steered(t, map[string]string{"jump": "staging", "force": "true"})
	if err := r.Jump(ctx, "prod", false); err != nil {
		t.Fatal(err)
	}
	if d := stateData(t, kc); d["force"] != "" || d["jump"] != "prod" {
		t.Fatalf("force stays: %v", d)
	}
}

// TestAnEditIsWrittenOnce: the same edit again writes nothing.
func TestAnEditIsWrittenOnce(t *testing.T) {
	r, kc := steered(t, map[string]string{})
	for range 2 {
		if err := r.Pause(context.Background(), ""); err != nil {
			t.Fatal(err)
		}
	}
	if n := writes(kc); n != 1 {
		t.Fatalf("%d writes, want 1", n)
	}
}

// TestAConcurrentChangeIsNotLost: a write that meets a concurrent change (409) reads the
// ConfigMap again and makes the edit on top of it.
func TestAConcurrentChangeIsNotLost(t *testing.T) {
	r, kc := steered(t, map[string]string{"skip": "web-dev-1"})
	conflicted := false
	kc.PrependReactor("update", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		if conflicted {
			return false, nil, nil
		}
		conflicted = true
		// someone else's edit lands first
		cm, _ := kc.Tracker().Get(corev1.SchemeGroupVersion.WithResource("configmaps"), ns, contract.StateConfigMap("web"))
		theirs := cm.(*corev1.ConfigMap).DeepCopy()
		theirs.Data["skip"] = "web-dev-1,web-prod-3"
		theirs.Data["approve"] = "prod"
		if err := kc.Tracker().Update(corev1.SchemeGroupVersion.WithResource("configmaps"), theirs, ns); err != nil {
			t.Fatal(err)
		}
		return true, nil, apierrors.NewConflict(corev1.Resource("configmaps"), theirs.Name, errors.New("changed"))
	})
	if err := r.Skip(context.Background(), "web-prod-2"); err != nil {
		t.Fatal(err)
	}
	got := stateData(t, kc)
	if !conflicted || got["skip"] != "web-dev-1,web-prod-2,web-prod-3" || got["approve"] != "prod" || got["by"] != "alice" {
		t.Fatalf("the concurrent edit was lost: %v", got)
	}
}

// TestARefusedEditWritesNothingAndSaysWhy: an edit the agent would refuse is refused here,
// with the fix, before anything is written.
func TestARefusedEditWritesNothingAndSaysWhy(t *testing.T) {
	ctx := context.Background()
	cases := map[string]struct {
		data map[string]string // nil: no state ConfigMap
		verb func(Rollout) error
		want string
	}{
		"a phase the plan does not have": {map[string]string{}, func(r Rollout) error { return r.Approve(ctx, "production") },
			`refused: approve="production": no phase "production" (fix: one of dev, staging, prod)`},
		"a pause end that is no time": {map[string]string{}, func(r Rollout) error { return r.Pause(ctx, "tomorrow") },
			`refused: pause-until="tomorrow": not an RFC 3339 time (fix: e.g. 2026-11-22T04:00:00Z)`},
		"a rollback beside an abort": {map[string]string{"abort": "wrong image"}, func(r Rollout) error { return r.Rollback(ctx) },
			`refused: rollback="error rate up": abort and rollback at once (fix: keep one)`},
		"a key someone mistyped": {map[string]string{"pasue": "x"}, func(r Rollout) error { return r.Resume(ctx) },
			`refused: pasue="x": unknown key (fix: remove it`},
		"a rollout without a state": {nil, func(r Rollout) error { return r.Pause(ctx, "") },
			"rollout web: no state yet (fix: wait for the agent to start its first rollout)"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r, kc := steered(t, c.data)
			err := c.verb(r)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
			if n := writes(kc); n != 0 {
				t.Fatalf("a refused edit wrote %d times", n)
			}
			var refused *Refused
			if c.data != nil && (!errors.As(err, &refused) || !strings.HasPrefix(err.Error(), "refused: ")) {
				t.Fatalf("a refusal is a *Refused, said as it is: %v", err)
			}
		})
	}
}

// TestUnskipTakesChildrenOffTheList: the last one off removes the key.
func TestUnskipTakesChildrenOffTheList(t *testing.T) {
	r, kc := steered(t, map[string]string{"skip": "web-dev-1, web-prod-2"})
	ctx := context.Background()
	if err := r.Unskip(ctx, "web-prod-2"); err != nil || stateData(t, kc)["skip"] != "web-dev-1" {
		t.Fatalf("%v %v", err, stateData(t, kc))
	}
	if err := r.Unskip(ctx, "web-dev-1"); err != nil {
		t.Fatal(err)
	}
	if _, ok := stateData(t, kc)["skip"]; ok {
		t.Fatalf("an empty skip list stays: %v", stateData(t, kc))
	}
}
