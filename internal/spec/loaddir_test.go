package spec_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestADirectorysEveryApplicationSetIsReported: a directory's problems are every file's,
// not the first bad one's — a second bad ApplicationSet, and that there are two, are said too.
func TestADirectorysEveryApplicationSetIsReported(t *testing.T) {
	dir := t.TempDir()
	bad := func(name, field string) {
		doc := "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: " + name + "}\nspec:\n  " + field + ": 1\n"
		if err := os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bad("a", "unknownA")
	bad("b", "unknownB")
	_, err := spec.Load(dir, targets.NewCache(8))
	if err == nil {
		t.Fatal("a directory of two bad ApplicationSets loaded")
	}
	for _, want := range []string{"a.yaml:", "unknownA", "b.yaml:", "unknownB", "several ApplicationSets: a.yaml, b.yaml"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
}
