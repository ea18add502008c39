package render_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestChildrenAreTheParentsBytes renders every golden case with a state twice: as the
// plugin does (Render, from the spec in git) and as the agent does when it admits children
// (Children, from the state and the plan's name and namespace only). Every child must be
// the same bytes, or the parent's render would not confirm what the agent applied.
func TestChildrenAreTheParentsBytes(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/*/state.json")
	compared := 0
	for _, f := range dirs {
		dir := filepath.Dir(f)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			exprs := targets.NewCache(16)
			s, err := spec.Parse("spec.yaml", mustRead(t, filepath.Join(dir, "spec.yaml")), exprs)
			if err != nil {
				t.Skip("spec refused:", err)
			}
			st, err := caseState(t, dir, s, exprs)
			if err != nil || st == nil {
				t.Skip("no usable state")
			}
			_, body, id, err := s.Revision()
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := st.Revisions[id]; !ok {
				st.Revisions[id] = body // the agent stores a revision before it admits anyone
			}
			invFile := filepath.Join(dir, "inventory.json")
			if _, err := os.Stat(invFile); err != nil {
				invFile = filepath.Join("testdata", "inventory.json")
			}
			inv, err := inputs.InventoryFromFile(invFile)
			if err != nil {
				t.Fatal(err)
			}
			env := render.Env{StateNamespace: "argocd", PhaseGen: st.Generation}
			r := render.New(8)
			docs, err := r.Render(render.Input{Spec: s, Inventory: inv, State: st, Env: env})
			if err != nil {
				t.Skip("render refused:", err)
			}
			want := map[string]string{}
			var keys []string
			for _, d := range docs[1:] {
				var m struct {
					Metadata struct {
						Name        string
						Annotations map[string]string
					} `json:"metadata"`
				}
				if err := json.Unmarshal(d, &m); err != nil {
					t.Fatal(err)
				}
				if m.Metadata.Annotations[contract.AnnotationUnselected] != "" {
					continue // no step selects it: the agent never moves it
				}
				want[m.Metadata.Name] = string(d)
				keys = append(keys, m.Metadata.Name)
			}
			got, err := r.Children(render.Input{Spec: &spec.Spec{Name: s.Name, Namespace: s.Namespace}, Inventory: inv, State: st, Env: env}, keys)
			if err != nil {
				t.Fatal(err)
			}
			for k, w := range want {
				if string(got[k]) != w {
					t.Errorf("child %s:\nagent:  %s\nparent: %s", k, got[k], w)
				}
			}
			compared += len(keys)
		})
	}
	if compared == 0 || !strings.Contains(strings.Join(dirs, ","), "mid-rollout") {
		t.Fatalf("compared %d children: the golden cases with a state are missing", compared)
	}
}
