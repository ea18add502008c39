package render

import (
	"errors"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

func TestSpecGone(t *testing.T) {
	loadErr := errors.New("no ApplicationSet found")
	cases := map[string]struct {
		st    *state.State
		want  string // "": renders nothing, no error
		empty bool
	}{
		"no state":                     {nil, "no ApplicationSet found", false},
		"deploys":                      {&state.State{Deployed: "r1", Children: []string{"a", "b"}}, "spec removed from git: the app directory has no ApplicationSet, but rollout web deploys 2 children at revision r1 (fix: restore the spec, or confirm the removal with confirm-remove-rollout: r1 in ConfigMap argocd/web-state", false},
		"being removed":                {&state.State{Deployed: "r1", Children: []string{"a"}, RemovedRevision: "r1"}, "rollout web is being removed, 1 children left", false},
		"removed":                      {&state.State{Deployed: "r1", RemovedRevision: "r1"}, "", true},
		"no children, no confirmation": {&state.State{Deployed: "r1"}, "deploys 0 children", false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			docs, err := SpecGone("web", "argocd", c.st, loadErr)
			if c.empty {
				if err != nil || len(docs) != 0 {
					t.Fatalf("%v %d", err, len(docs))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}
