package rollout

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

func subject(key, env string) targets.Child {
	return targets.Child{Key: key, Subject: targets.Subject{Name: key, Labels: map[string]string{"env": env}, AppLabels: map[string]string{"env": env}}}
}

func envPhase(name, env string, size spec.Size, appLabels bool) spec.Phase {
	t := targets.Target{MatchExpressions: []targets.Requirement{{Key: "env", Operator: "In", Values: []string{env}}}}
	if err := t.Compile(nil); err != nil {
		panic(err)
	}
	return spec.Phase{Name: name, Targets: []targets.Target{t}, Size: size, MatchAppLabels: appLabels}
}

func TestSnapshotIsSortedAndDeterministic(t *testing.T) {
	subjects := []targets.Child{subject("prod-b", "prod"), subject("dev-1", "dev"), subject("prod-a", "prod"), subject("lab", "lab")}
	phases := []spec.Phase{envPhase("canary", "prod", pct(10), false), envPhase("full", "prod", spec.Size{}, false), envPhase("dev", "dev", spec.Size{}, false)}
	got, err := Snapshot(phases, subjects)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"prod-a", "prod-b"}, {"prod-a", "prod-b"}, {"dev-1"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("phaseDeployment phases share targets: got %v want %v", got, want)
	}
	slices.Reverse(subjects)
	again, _ := Snapshot(phases, subjects)
	if fmt.Sprint(again) != fmt.Sprint(got) {
		t.Fatalf("snapshot depends on input order: %v vs %v", again, got)
	}
}

func TestRollingStepsTakeEachChildOnce(t *testing.T) {
	subjects := []targets.Child{subject("a", "prod"), subject("b", "prod")}
	phases := []spec.Phase{envPhase("step-1", "prod", spec.Size{}, true), envPhase("step-2", "prod", spec.Size{}, true)}
	got, _ := Snapshot(phases, subjects)
	if len(got[0]) != 2 || len(got[1]) != 0 {
		t.Fatalf("a child selected by two steps updates in the first: %v", got)
	}
}

func TestCanaryThenFullAdmitsTheRestLater(t *testing.T) {
	members := make([]string, 20)
	for i := range members {
		members[i] = fmt.Sprintf("prod-%02d", i)
	}
	admitted := map[string]bool{}
	canary := ToAdmit(pct(10), members, admitted)
	if fmt.Sprint(canary) != "[prod-00 prod-01]" {
		t.Fatalf("10%% canary of 20: %v", canary)
	}
	for _, m := range canary {
		admitted[m] = true
	}
	rest := ToAdmit(spec.Size{Kind: spec.SizeAll}, members, admitted)
	if len(rest) != 18 || slices.Contains(rest, "prod-00") {
		t.Fatalf("full production admits the 18 others: %v", rest)
	}
	if again := ToAdmit(pct(10), members, admitted); len(again) != 0 {
		t.Fatalf("a phase already satisfied admits nobody: %v", again)
	}
}

func TestNextBatchKeepsAtMostMaxUpdateInFlight(t *testing.T) {
	members := []string{"a", "b", "c", "d", "e"}
	started := map[string]bool{"a": true, "b": true}
	if got := NextBatch(count(2), members, started, 1); fmt.Sprint(got) != "[c]" {
		t.Fatalf("one of two slots free: %v", got)
	}
	if got := NextBatch(count(2), members, started, 2); len(got) != 0 {
		t.Fatalf("no slot free: %v", got)
	}
	if got := NextBatch(spec.Size{Kind: spec.SizeCount, Gate: true}, members, nil, 0); len(got) != 0 {
		t.Fatalf("a gated step starts nobody: %v", got)
	}
	if got := describe(members); got != "a, b, c and 2 more" {
		t.Fatalf("describe: %q", got)
	}
}
