//go:build e2e

package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestTheFleetWideStopFreezesEveryRolloutAtOnce: two rollouts of two parents, each driven
// by its own agent (shards) sharing one fleet ConfigMap (its own name, so the other tests
// on the shared stack are not stopped). stop-all pauses both during staging's soak (45s),
// past its end, with an Event on each parent; resume-all releases both and they complete.
func TestTheFleetWideStopFreezesEveryRolloutAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const fleetCM = "e2e-stopall-fleet"
	rs := []*phased{newPhased(t, "stopall-a", "stop"), newPhased(t, "stopall-b", "stop")}
	revs := map[*phased]string{}
	for _, r := range rs {
		// A soak long enough for both rollouts to be in it when the stop lands, however far
		// apart the two agents get on a loaded machine.
		r.edit = func(s string) string {
			if strings.Count(s, "waitDuration: 10s") != 1 {
				t.Fatal("the phased spec no longer soaks staging for 10s")
			}
			return strings.Replace(s, "waitDuration: 10s", "waitDuration: 45s", 1)
		}
		defer r.agent("agent-"+r.name, nil, "--fleet-configmap", fleetCM).Stop(5 * time.Second)
		revs[r] = r.commit("v1", map[string]string{"v1": framework.Workload(r.name, "v1")})
		newParent(ctx, t, r.name, r.name+"/app", 0)
	}
	for _, r := range rs {
		r.waitState("staging soaks", func(st *state.State) bool {
			return st.Rollout.Phase == 1 && st.Rollout.Phases[1].Status == state.PhaseSoaking
		})
	}
	rs[0].cli("stop-all", "--fleet-configmap", fleetCM, "--reason", "incident 4711", "--by", "sre-oncall")
	var soakEnd time.Time
	for _, r := range rs {
		st := r.waitState("the fleet-wide stop pauses it", func(st *state.State) bool { return st.Paused != nil && st.Paused.Fleet })
		if st.Paused.Reason != "incident 4711" || st.Paused.By != "sre-oncall" {
			t.Fatalf("%s paused %+v", r.name, st.Paused)
		}
		if s := st.Rollout.Phases[1].SoakUntil; s != nil && s.After(soakEnd) {
			soakEnd = *s
		}
	}
	time.Sleep(time.Until(soakEnd.Add(8 * time.Second)))
	for _, r := range rs {
		st, err := r.state(ctx)
		if err != nil || st.Rollout.Phase != 1 || st.Paused == nil {
			t.Fatalf("%s: the stop did not hold past the soak: %v %+v", r.name, err, st)
		}
		if out := r.cli("status", r.name); !strings.Contains(out, "fleet-wide stop") {
			t.Fatalf("%s: status does not show the stop:\n%s", r.name, out)
		}
		if !slices.Contains(r.events(ctx), rollout.EvPaused) {
			t.Fatalf("%s: no Paused Event on the parent: %v", r.name, r.events(ctx))
		}
	}
	rs[0].cli("resume-all", "--fleet-configmap", fleetCM, "--reason", "resolved", "--by", "sre-oncall")
	for _, r := range rs {
		r.until("the rollout completes after resume-all", revs[r], rollout.StatusCompleted, everywhere("v1"))
	}
}
