package render

import (
	"context"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

const boundSpec = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: bound, namespace: argocd}
spec:
  generators:
  - clusters:
      values: {version: VERSION}
  template:
    metadata: {name: 'bound-{{name}}'}
    spec:
      project: default
      source: {repoURL: https://git.example.com/a.git, targetRevision: '{{values.version}}', path: app}
      destination: {server: '{{server}}', namespace: bound}
`

// TestParamsBounded: of the compiled revisions a renderer keeps, only the paramSets most
// recently used keep their parameters (and what their children deploy); the others
// generate them again, the same, when used.
func TestParamsBounded(t *testing.T) {
	inv := &inventory.Inventory{Clusters: []inventory.Cluster{{Name: "a", Server: "https://a"}, {Name: "b", Server: "https://b"}}}
	for _, tc := range []struct {
		name            string
		revisions, sets int
		wantKept        int
	}{
		{"New keeps every compiled revision's parameters", 8, 8, 5},
		{"two parameter sets", 8, 2, 2},
		{"one parameter set", 8, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewBounded(tc.revisions, tc.sets)
			var compiled []*compiledRev
			for _, v := range []string{"v1", "v2", "v3", "v4", "v5"} {
				s, err := spec.Parse("s.yaml", []byte(strings.ReplaceAll(boundSpec, "VERSION", v)), targets.NewCache(4))
				if err != nil {
					t.Fatal(err)
				}
				_, body, id, err := s.Revision()
				if err != nil {
					t.Fatal(err)
				}
				c, err := r.compiled(id, body, s.Name)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := c.paramsFor(context.Background(), inv); err != nil {
					t.Fatal(err)
				}
				compiled = append(compiled, c)
			}
			kept := 0
			for i, c := range compiled {
				c.mu.Lock()
				has := c.byName != nil
				c.mu.Unlock()
				if has {
					kept++
					if i < len(compiled)-tc.sets {
						t.Errorf("revision %d of %d keeps its parameters, not one of the %d most recent", i+1, len(compiled), tc.sets)
					}
				}
			}
			if kept != tc.wantKept {
				t.Errorf("%d revisions keep parameters, want %d", kept, tc.wantKept)
			}
			again, err := compiled[0].paramsFor(context.Background(), inv)
			if err != nil || len(again) != 3 { // a, b and in-cluster
				t.Fatalf("a dropped revision generates its parameters again: %v %v", again, err)
			}
		})
	}
}
