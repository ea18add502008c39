package render_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGolden renders every testdata/<case>/ (spec.yaml; inventory.json, else the shared one;
// state.json with @current/@old/@rollout standing for revision ids; phase-gen) and compares
// with expected.yaml, or expected-error.txt when the render must fail.
func TestGolden(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/*/spec.yaml")
	if len(dirs) < 20 {
		t.Fatalf("expected at least 20 golden cases, found %d", len(dirs))
	}
	for _, f := range dirs {
		dir := filepath.Dir(f)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			got, err := renderCase(t, dir)
			if err != nil {
				if len(got) > 0 {
					t.Fatalf("failed render produced output: %s", got)
				}
				compareGolden(t, filepath.Join(dir, "expected-error.txt"), []byte(err.Error()+"\n"))
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error is not one line: %q", err)
				}
				return
			}
			compareGolden(t, filepath.Join(dir, "expected.yaml"), got)
		})
	}
}

func renderCase(t *testing.T, dir string) ([]byte, error) {
	t.Helper()
	exprs := targets.NewCache(16)
	data := mustRead(t, filepath.Join(dir, "spec.yaml"))
	s, err := spec.Parse("spec.yaml", data, exprs)
	if err != nil {
		return nil, err
	}
	invFile := filepath.Join(dir, "inventory.json")
	if _, err := os.Stat(invFile); err != nil {
		invFile = filepath.Join("testdata", "inventory.json")
	}
	inv, err := inputs.InventoryFromFile(invFile)
	if err != nil {
		return nil, err
	}
	st, err := caseState(t, dir, s, exprs)
	if err != nil {
		return nil, err
	}
	gen, _ := os.ReadFile(filepath.Join(dir, "phase-gen"))
	env, err := inputs.Env(func(k string) (string, bool) {
		if k == contract.PluginEnvPhaseGen && len(gen) > 0 {
			return strings.TrimSpace(string(gen)), true
		}
		return "", false
	}, contract.DefaultNamespace)
	if err != nil {
		return nil, err
	}
	docs, err := render.New(8).Render(render.Input{Spec: s, Inventory: inv, State: st, Env: env})
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := render.WriteStream(&b, docs); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), nil
}

// caseState reads state.json, substituting revision ids and storing the revisions' specs.
func caseState(t *testing.T, dir string, current *spec.Spec, exprs *targets.Cache) (*state.State, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		return nil, nil //nolint:nilerr // no state file: no state
	}
	revs := map[string][]byte{}
	text := string(raw)
	for placeholder, file := range map[string]string{"@current": "spec.yaml", "@old": "old-spec.yaml", "@rollout": "rollout-spec.yaml"} {
		if !strings.Contains(text, `"`+placeholder+`"`) {
			continue
		}
		s := current
		if file != "spec.yaml" {
			if s, err = spec.Parse(file, mustRead(t, filepath.Join(dir, file)), exprs); err != nil {
				t.Fatal(err)
			}
		}
		_, body, id, err := s.Revision()
		if err != nil {
			t.Fatal(err)
		}
		revs[id] = body
		text = strings.ReplaceAll(text, `"`+placeholder+`"`, `"`+id+`"`)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err == nil && len(revs) > 0 {
		stored := map[string]json.RawMessage{}
		for id, b := range revs {
			stored[id] = b
		}
		m["revisions"] = stored
		b, _ := json.Marshal(m)
		text = string(b)
	}
	st, err := state.DecodeJSON([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("state file state.json: %w", err)
	}
	return st, nil
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("missing golden file %s (run go test ./internal/render -update): got\n%s", path, got)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs:\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// TestInventoryShape keeps the shared test inventory decodable.
func TestInventoryShape(t *testing.T) {
	inv, err := inventory.Decode("inventory.json", mustRead(t, "testdata/inventory.json"))
	if err != nil || len(inv.Clusters) != 6 {
		t.Fatalf("inventory: %v %v", inv, err)
	}
}
