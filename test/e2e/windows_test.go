//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestADenyWindowHoldsAPhaseAndItsOverrideLetsItThroughOnce: staging and prod-half sit in a
// deny window around now. dev rolls out; staging is held with the window named in status;
// override-window admits staging once; prod-half is held again; a spec commit that removes
// the window (the same revision: windows are not part of it) lets the rollout complete.
func TestADenyWindowHoldsAPhaseAndItsOverrideLetsItThroughOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "windows", "stop")
	now := time.Now().UTC()
	block := "        windows:\n        - {name: freeze, kind: deny, start: '" + now.Add(-time.Hour).Format(time.RFC3339) +
		"', end: '" + now.Add(6*time.Hour).Format(time.RFC3339) + "'}\n"
	r.edit = func(s string) string {
		for _, ph := range []string{"staging", "prod-half"} {
			at := "      - name: " + ph + "\n"
			if strings.Count(s, at) != 1 {
				t.Fatalf("the phased spec no longer has phase %s", ph)
			}
			s = strings.Replace(s, at, at+block, 1)
		}
		return s
	}
	defer r.agent("agent-"+r.name, nil).Stop(5 * time.Second)
	rev := r.commit("v1", map[string]string{"v1": framework.Workload(r.name, "v1")})
	newParent(ctx, t, r.name, r.name+"/app", 0)

	held := func(phase string) func(*state.State) bool {
		return func(st *state.State) bool {
			ro := st.Rollout
			return ro != nil && ro.Window != nil && ro.Window.Phase == phase && len(ro.Phases) > 1
		}
	}
	st := r.waitState("staging is held by the window", held("staging"))
	if len(st.Rollout.Phases[1].Admitted) != 0 || st.Rollout.Window.Opens == nil {
		t.Fatalf("staging admitted inside the window, or no opening: %+v %+v", st.Rollout.Phases[1], st.Rollout.Window)
	}
	if out := r.cli("status", r.name); !strings.Contains(out, "window freeze") || !strings.Contains(out, "next opening") {
		t.Fatalf("status does not name the window and its opening:\n%s", out)
	}
	r.cli("override-window", r.name, "freeze", "--reason", "hotfix 42", "--by", "alice")
	st = r.waitState("prod-half is held again after staging", held("prod-half"))
	if len(st.Rollout.Phases[1].Admitted) == 0 || len(st.Rollout.Phases[2].Admitted) != 0 {
		t.Fatalf("the override did not let staging (only) through: %+v", st.Rollout.Phases)
	}
	found := false
	for _, h := range st.Rollout.History {
		found = found || (h.Event == rollout.EvWindowOverridden && strings.Contains(h.Message, "alice"))
	}
	if !found {
		t.Fatalf("the override is not recorded with who: %+v", st.Rollout.History)
	}
	r.edit = nil
	if again := r.commit("v1", nil); again != rev {
		t.Fatalf("removing a window made a new revision %s (was %s)", again, rev)
	}
	r.until("the rollout completes once the window is gone", rev, rollout.StatusCompleted, everywhere("v1"))
}
