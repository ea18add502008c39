package render_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestARevisionBodyIsWeighedBeforeItIsDecoded: the state and the plan keep the revisions'
// bodies raw (they weigh their bytes only there), so an edit of either could hand the
// render 8 MiB of `{},` that decodes to gigabytes (issue 47). The render refuses a body
// over its decode limit naming the revision and the fix, having allocated next to nothing.
func TestARevisionBodyIsWeighedBeforeItIsDecoded(t *testing.T) {
	s, err := spec.Parse("spec.yaml", []byte(strings.Replace(clusterLabelSpec, "ELEMENT", "x", 1)), targets.NewCache(4))
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"generators":[` + strings.Repeat(`{},`, 8<<20/3) + `{}]}`)
	in := render.Input{Spec: s, Inventory: &inventory.Inventory{}, State: &state.State{Schema: state.Schema, Generation: 1},
		Env: render.Env{StateNamespace: "argocd", PhaseGen: 1}}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = render.New(1).ChildAt(in, "0123456789abcdef", body, "web-x", "p")
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "revision 0123456789abcdef: ") || !strings.Contains(err.Error(), "to decode, over the limit of 512 MiB") ||
		!strings.Contains(err.Error(), "(fix: ") {
		t.Fatalf("want the body refused before it is decoded, got %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Fatalf("refusing it allocated %d MiB", got>>20)
	}
}
