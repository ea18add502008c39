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

// TestOneTrackRollsBackWhileTheOtherCompletes: the phased spec splits by region from
// staging on (tracks: labels.region): dev is shared, then eu (staging-1, prod-1) and us
// (staging-2, prod-2) walk staging, prod-half and prod each on their own. v2 is Degraded on
// prod-2, so us fails at prod-half and rolls back (onFailure rollback): its own phases
// return to v1, latest first, never the shared dev. eu goes on and completes. The rollout
// then ends Stopped (not every track completed): dev and eu keep v2, us runs v1; the
// status key has a line per track; the parent's Events name the track.
func TestOneTrackRollsBackWhileTheOtherCompletes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "tracks", "rollback")
	r.edit = func(s string) string {
		return strings.Replace(s, "        spread: labels.env   # one value among staging's members: name order, as without it\n",
			"        spread: labels.env   # one value among staging's members: name order, as without it\n        tracks: labels.region\n", 1)
	}
	defer r.agent("agent-tracks", nil).Stop(5 * time.Second)
	r.firstDeployment(ctx, framework.DegradedWorkload(r.name, "v2", "prod-2"))
	r2 := r.commit("v2", nil)
	if err := env.Refresh(ctx, r.name, false); err != nil {
		t.Fatal(err)
	}
	r.waitState("us rolls back while eu goes on", func(st *state.State) bool {
		return st.Rollout.Revision == r2 && trackStatus(st, "us") == rollout.StatusRolledBack
	})
	want := map[string]string{"dev-1": "v2", "dev-2": "v2", "staging-1": "v2", "prod-1": "v2", "staging-2": "v1", "prod-2": "v1"}
	r.until("eu completes, us is back on v1, the rollout stops", r2, rollout.StatusStopped, want)
	st, _ := r.state(ctx)
	if trackStatus(st, "eu") != rollout.StatusCompleted || st.Deployed == r2 {
		t.Fatalf("eu completed; v2 is not the deployed revision: %+v deployed %s", st.Rollout.Tracks, st.Deployed)
	}
	for _, s := range []string{"us RolledBack", r.name + "-prod-2", "keep revision " + r2} {
		if !strings.Contains(st.Rollout.Reason, s) {
			t.Fatalf("the reason %q lacks %q", st.Rollout.Reason, s)
		}
	}
	var back []string
	for _, e := range st.Rollout.History {
		if e.Event == rollout.EvPhaseRollingBack {
			back = append(back, e.Message)
		}
	}
	if len(back) != 2 || !strings.HasPrefix(back[0], "track us: phase prod-half:") || !strings.HasPrefix(back[1], "track us: phase staging:") {
		t.Fatalf("us returns its own phases, latest first, never the shared dev: %q", back)
	}
	r.eventually(rollout.EvTrackRolledBack)
	r.eventually(rollout.EvTrackCompleted)
	r.eventually(rollout.EvRolloutStopped)
}

// trackStatus is the status of the named track of st's rollout ("" when it has none).
func trackStatus(st *state.State, name string) state.RolloutStatus {
	if st.Rollout == nil {
		return ""
	}
	i := slices.IndexFunc(st.Rollout.Tracks, func(t state.Track) bool { return t.Name == name })
	if i < 0 {
		return ""
	}
	return st.Rollout.Tracks[i].Status
}
