package plan

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

var updatePlanGolden = flag.Bool("update-plan-golden", false, "rewrite testdata/plan-v2/*.golden from this code")

// TestThePlanIsWrittenByteForByte: each previous-release plan (testdata/head-2586d71),
// decoded and written again, is byte for byte the manifest recorded in testdata/plan-v2
// (written by the code of schema 2 before the plan became a leaf); and that manifest reads
// back and writes the same bytes again. The wire format is the contract between a sidecar
// and an agent of different versions.
func TestThePlanIsWrittenByteForByte(t *testing.T) {
	for _, f := range previousPlans(t) {
		golden := filepath.Join("testdata/plan-v2", strings.TrimSuffix(filepath.Base(f), ".json")+".golden")
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, _ := os.ReadFile(f)
			got := writeAgain(t, raw)
			if *updatePlanGolden {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("written differently:\n%s\nwant\n%s", got, want)
			}
			if again := writeAgain(t, want); !bytes.Equal(again, want) {
				t.Fatalf("the golden plan, read and written, changed:\n%s\nwant\n%s", again, want)
			}
		})
	}
}

// writeAgain decodes a plan manifest and encodes it as the renderer does, at Schema.
func writeAgain(t *testing.T, raw []byte) []byte {
	t.Helper()
	p, err := Decode(configMap(t, raw), targets.NewCache(16))
	if err != nil {
		t.Fatal(err)
	}
	p.Schema = Schema
	obj, err := p.Object()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Encode(obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
