package plan

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/cmp-phase/cmp-phase/internal/hooks/all"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// canon is a decoded plan in a form that does not depend on how it is tagged: what
// testdata/head-2586d71/*.decoded.json recorded of each plan, decoded by that commit's
// render.DecodePlan (the plan's last hand-kept shape).
type canon struct {
	Rollout, Parent, Namespace, Revision, Body string
	Phases                                     []canonPhase
	LateJoiners                                string
	Unphased                                   map[string]string
	ConfirmRemoval                             bool
	MaxFailures                                spec.Size
	DeletionOrder                              string
	Children                                   *ChildEnv
	Windows                                    []spec.Window
	Others                                     map[string]json.RawMessage
}

type canonPhase struct {
	Name                           string
	Targets                        []targets.Target
	MatchAppLabels                 bool
	Size                           spec.Size
	PreHooks, PostHooks, Checks    []spec.Hook
	WaitDuration, ProgressDeadline time.Duration
	MaxFailures                    int
	Order, Spread                  string
	Throttle                       spec.Size
	Approval                       *spec.Approval
	Windows                        []spec.Window
	Tracks                         string
}

func canonOf(p *Plan) []byte {
	c := canon{Rollout: p.Rollout, Parent: p.Parent, Namespace: p.Namespace, Revision: p.Revision, Body: string(p.Body),
		LateJoiners: p.LateJoiners, Unphased: p.Unphased, ConfirmRemoval: p.ConfirmRemoval, MaxFailures: p.MaxFailures,
		DeletionOrder: p.DeletionOrder, Children: p.Children, Windows: p.Windows, Others: p.Others}
	for _, ph := range p.Phases {
		c.Phases = append(c.Phases, canonPhase{Name: ph.Name, Targets: ph.Targets, MatchAppLabels: ph.MatchAppLabels, Size: ph.Size,
			PreHooks: ph.PreHooks, PostHooks: ph.PostHooks, Checks: ph.Checks, WaitDuration: ph.WaitDuration, ProgressDeadline: ph.ProgressDeadline,
			MaxFailures: ph.MaxFailures, Order: ph.Ordering.Order, Spread: ph.Ordering.Spread, Throttle: ph.Throttle, Approval: ph.Approval,
			Windows: ph.Windows, Tracks: ph.Tracks.Src})
	}
	out, _ := json.MarshalIndent(c, "", " ")
	return append(out, '\n')
}

// configMap is what Decode reads of a plan ConfigMap's manifest b.
func configMap(t *testing.T, b []byte) Manifest {
	t.Helper()
	var cm struct {
		Metadata struct {
			Namespace, Name     string
			Labels, Annotations map[string]string
		}
		Data map[string]string
	}
	if err := json.Unmarshal(b, &cm); err != nil {
		t.Fatal(err)
	}
	m := cm.Metadata
	return Manifest{Namespace: m.Namespace, Name: m.Name, Labels: m.Labels, Annotations: m.Annotations, Data: cm.Data}
}

// TestAPlanOfThePreviousReleaseReadsUnchanged: every plan ConfigMap the previous shape
// wrote (testdata/head-2586d71: the render goldens, a spec with every plan field, a
// composed one) decodes to what that release decoded; and written again by this one, it
// decodes to the same once more.
func TestAPlanOfThePreviousReleaseReadsUnchanged(t *testing.T) {
	for _, f := range previousPlans(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, _ := os.ReadFile(f)
			want, err := os.ReadFile(strings.TrimSuffix(f, ".json") + ".decoded.json")
			if err != nil {
				t.Fatal(err)
			}
			p, err := Decode(configMap(t, raw), targets.NewCache(16))
			if err != nil {
				t.Fatal(err)
			}
			if got := canonOf(p); !bytes.Equal(got, want) {
				t.Fatalf("decoded differently from the previous release:\n%s\nwant\n%s", got, want)
			}
			if p.Schema != 1 {
				t.Fatalf("a plan without a schema is schema 1, got %d", p.Schema)
			}
			again := roundTrip(t, p)
			if got := canonOf(again); !bytes.Equal(got, want) {
				t.Fatalf("written again, decoded differently:\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// roundTrip writes p as the renderer does and reads it back.
func roundTrip(t *testing.T, p *Plan) *Plan {
	t.Helper()
	p.Schema = Schema
	obj, err := p.Object()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Encode(obj)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Decode(configMap(t, b), targets.NewCache(16))
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if again.Schema != Schema || again.Generation != p.Generation {
		t.Fatalf("schema %d generation %d", again.Schema, again.Generation)
	}
	return again
}

// previousPlans are the plan manifests the previous release wrote (testdata/head-2586d71,
// their decoded forms left out): at least ten, or the tests over them prove little.
func previousPlans(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob("testdata/head-2586d71/*.json")
	files = slices.DeleteFunc(files, func(f string) bool { return strings.HasSuffix(f, ".decoded.json") })
	if len(files) < 10 {
		t.Fatalf("only %d golden plans", len(files))
	}
	return files
}
