package rollout

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// TestUpgradePinsWithoutARollout: a state from before pinned commits deploys a spec-only
// revision; the plan is the same spec with content. Every child is pinned to the plan's
// commit all at once (one re-render), no rollout starts, and the old id is gone.
func TestUpgradePinsWithoutARollout(t *testing.T) {
	specBody := []byte(`{"generators":[],"template":{}}`)
	old := spec.RevisionID(specBody)
	body, id, err := spec.WithContent(specBody, spec.Content{Digest: "d1", Commit: strings.Repeat("a", 40), RepoURL: "https://git/x", Refs: []string{"", "HEAD"}})
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(spec.Phase{Name: "all", OnFailure: "stop"})
	w.st.Deployed, w.st.Revisions = old, map[string]json.RawMessage{old: specBody}
	w.st.Pinned = map[string]string{"dev-1": old}
	w.plan.Revision, w.plan.Body = id, body
	acts := w.step(t, 0)
	if w.st.Rollout != nil || w.st.Deployed != id || len(w.st.Revisions) != 1 || string(w.st.Revisions[id]) != string(body) {
		t.Fatalf("adopted in place, no rollout: deployed %s rollout %+v revisions %d", w.st.Deployed, w.st.Rollout, len(w.st.Revisions))
	}
	if w.st.Pinned["dev-1"] != id {
		t.Fatalf("pins follow: %v", w.st.Pinned)
	}
	if w.st.ViewGeneration != w.st.Generation || !hasEvent(acts, EvRevisionPinned) {
		t.Fatalf("one re-render and an Event: view %d generation %d, %+v", w.st.ViewGeneration, w.st.Generation, acts)
	}
	if next, _, _ := Step(w.plan, w.st, w.obs, at(1)); next != w.st {
		t.Fatalf("nothing more to do: %+v", next)
	}
}

// TestUnphasedSourcesAreWarnedAbout: a rollout whose plan names children following a moving
// ref the renderer cannot see says so in a Warning Event.
func TestUnphasedSourcesAreWarnedAbout(t *testing.T) {
	w := newWorld(spec.Phase{Name: "all", OnFailure: "stop"})
	w.plan.Unphased = map[string]string{"prod-1": "https://git/other@main"}
	acts := w.step(t, 0)
	for _, a := range acts {
		if a.Reason == EvNotPhased && a.Warning && strings.Contains(a.Message, "prod-1 (https://git/other@main)") && strings.Contains(a.Message, "fix:") {
			return
		}
	}
	t.Fatalf("a NotPhased Warning names the child and the fix: %+v", acts)
}

// TestLeftOutChildrenAreWarnedAboutAndKept: a rollout whose plan names unselected
// children the render left out says so in a Warning Event, with the reason and the fix,
// and keeps them in the rollout for status.
func TestLeftOutChildrenAreWarnedAboutAndKept(t *testing.T) {
	w := newWorld(spec.Phase{Name: "all", OnFailure: "stop"})
	w.plan.LeftOut = map[string]string{"in-cluster-app": `template.metadata.labels.env renders "{{metadata.labels.env}}"`}
	acts := w.step(t, 0)
	if w.st.Rollout.LeftOut["in-cluster-app"] == "" {
		t.Fatalf("the rollout keeps the left-out children: %+v", w.st.Rollout)
	}
	for _, a := range acts {
		if a.Reason == EvChildrenLeftOut && a.Warning && strings.Contains(a.Message, "in-cluster-app") && strings.Contains(a.Message, "labels.env renders") && strings.Contains(a.Message, "fix:") {
			return
		}
	}
	t.Fatalf("a ChildrenLeftOut Warning names the child, the reason and the fix: %+v", acts)
}

func hasAct(acts []Action, k ActionKind) bool {
	for _, a := range acts {
		if a.Kind == k {
			return true
		}
	}
	return false
}

func hasEvent(acts []Action, ev string) bool {
	for _, a := range acts {
		if a.Kind == ActEvent && a.Reason == ev {
			return true
		}
	}
	return false
}

func contentPlan(t *testing.T, specBody []byte, commit byte) (string, []byte) {
	t.Helper()
	body, id, err := spec.WithContent(specBody, spec.Content{Digest: "d1", Commit: strings.Repeat(string(commit), 40), RepoURL: "https://git/x", Refs: []string{"", "HEAD"}})
	if err != nil {
		t.Fatal(err)
	}
	return id, body
}

// TestUpgradeOnlyWhenSafe: another revision from before pinned commits (a child pinned to
// it) keeps the upgrade from re-labelling: the plan's revision rolls out instead; a rollout
// of the legacy revision runs on as it is; a stored content revision is never overwritten.
func TestUpgradeOnlyWhenSafe(t *testing.T) {
	specBody := []byte(`{"generators":[],"template":{}}`)
	old := spec.RevisionID(specBody)
	other := []byte(`{"generators":[],"template":{"x":1}}`)
	id, body := contentPlan(t, specBody, 'a')

	w := newWorld(spec.Phase{Name: "all", OnFailure: "stop"})
	w.st.Deployed, w.st.Revisions = old, map[string]json.RawMessage{old: specBody, spec.RevisionID(other): other}
	w.st.Pinned = map[string]string{"dev-1": spec.RevisionID(other)}
	w.plan.Revision, w.plan.Body = id, body
	w.step(t, 0)
	if w.st.Rollout == nil || w.st.Rollout.Revision != id || w.st.Deployed != old {
		t.Fatalf("not safe to re-label: a rollout of the pinned revision instead: %+v deployed %s", w.st.Rollout, w.st.Deployed)
	}

	w = newWorld(spec.Phase{Name: "all", OnFailure: "stop"})
	w.st.Revisions[old] = specBody
	w.plan.Revision, w.plan.Body = old, specBody
	w.step(t, 0) // a rollout of the legacy revision starts
	w.plan.Revision, w.plan.Body = id, body
	w.step(t, 1)
	if w.st.Rollout.Revision != old || !w.st.Rollout.Active() || w.st.Revisions[id] != nil {
		t.Fatalf("the legacy rollout runs on as it is: %+v", w.st.Rollout)
	}

	w = newWorld(spec.Phase{Name: "all", OnFailure: "stop"})
	newer, _ := contentPlan(t, specBody, 'b')
	w.st.Deployed, w.st.Revisions = old, map[string]json.RawMessage{old: specBody, id: body}
	_, nb := contentPlan(t, specBody, 'b')
	w.plan.Revision, w.plan.Body = newer, nb
	w.step(t, 0)
	if string(w.st.Revisions[id]) != string(body) {
		t.Fatal("a stored content revision keeps its commit")
	}
}
