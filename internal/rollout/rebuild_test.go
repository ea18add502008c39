package rollout

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

func TestALostStateIsRebuiltFromTheLiveChildrenWithoutMovingAnyone(t *testing.T) {
	p := plan.Plan{Revision: "r2", Body: json.RawMessage(`{"v":2}`)}
	others := map[string]json.RawMessage{"r1": json.RawMessage(`{"v":1}`), "r0": json.RawMessage(`{"v":0}`)}
	live := map[string]string{"dev-1": "r2", "dev-2": "r2", "prod-1": "r1", "prod-2": "r1", "lab-1": "r0"}
	st, err := Rebuild(p, others, live, 41)
	if err != nil {
		t.Fatal(err)
	}
	if st.Generation != 42 || st.Deployed != "r1" || st.Pinned["dev-1"] != "r2" || st.Pinned["lab-1"] != "r0" || st.Pinned["prod-1"] != "" {
		t.Fatalf("%+v", st)
	}
	for child, rev := range live {
		if got, _, _ := st.RevisionOf(child); got != rev {
			t.Fatalf("%s runs %s, the rebuilt state says %s", child, rev, got)
		}
	}
	if _, ok := st.Revisions["r0"]; !ok || len(st.Revisions) != 3 {
		t.Fatalf("revisions %v", st.Revisions)
	}
}

func TestAFleetAllOnThePlanRevisionRebuildsAsDeployed(t *testing.T) {
	st, err := Rebuild(plan.Plan{Revision: "r2", Body: json.RawMessage(`{}`)}, nil, map[string]string{"a": "r2", "b": "r2"}, 3)
	if err != nil || st.Deployed != "r2" || len(st.Pinned) != 0 {
		t.Fatalf("%+v %v", st, err)
	}
}

func TestARevisionNobodyKeptFailsTheRebuildClosed(t *testing.T) {
	_, err := Rebuild(plan.Plan{Revision: "r2", Body: json.RawMessage(`{}`)}, nil, map[string]string{"a": "r2", "b": "r9"}, 3)
	if err == nil || !strings.Contains(err.Error(), `child b runs revision "r9"`) || !strings.Contains(err.Error(), "fix:") {
		t.Fatalf("got %v", err)
	}
}

// TestAPhaseGenWithNoGenerationAfterItFailsTheRebuildClosed: the rebuilt state's generation
// is PHASE_GEN+1, which for the largest int64 wrapped to a negative generation every render
// refused as stale, and which just below it gave a state that could never be written again
// (issue 47: safe but stuck, with a misleading message). A PHASE_GEN over 2^53 is an error
// naming PHASE_GEN and the fix; one at 2^53 rebuilds a state that many writes can follow.
func TestAPhaseGenWithNoGenerationAfterItFailsTheRebuildClosed(t *testing.T) {
	live := map[string]string{"a": "r2"}
	for _, gen := range []int64{math.MaxInt64, math.MaxInt64 - 1, state.MaxGeneration, MaxRebuildPhaseGen + 1, -1} {
		st, err := Rebuild(plan.Plan{Revision: "r2", Body: json.RawMessage(`{}`)}, nil, live, gen)
		if err == nil {
			t.Fatalf("PHASE_GEN %d: rebuilt generation %d", gen, st.Generation)
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("PHASE_GEN is %d", gen)) || !strings.Contains(err.Error(), "(fix: set the parent's plugin env PHASE_GEN to 0") {
			t.Fatalf("PHASE_GEN %d: %v", gen, err)
		}
	}
	st, err := Rebuild(plan.Plan{Revision: "r2", Body: json.RawMessage(`{}`)}, nil, live, MaxRebuildPhaseGen)
	if err != nil || st.Generation != MaxRebuildPhaseGen+1 {
		t.Fatalf("%+v %v", st, err)
	}
	st.Generation += 1 << 40 // many writes later, the state is still one a read accepts
	if b, err := state.Encode(st); err != nil {
		t.Fatal(err)
	} else if _, err := state.Decode(b); err != nil {
		t.Fatalf("a state written after the rebuild: %v", err)
	}
}
