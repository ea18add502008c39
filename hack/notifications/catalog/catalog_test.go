package catalog

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTheCatalogFilesAreGenerated: the checked-in catalog and Helm values are exactly what
// Generate writes, so no hand edit drifts from the escaping every template repeats.
func TestTheCatalogFilesAreGenerated(t *testing.T) {
	cm, helm := Generate()
	for path, want := range map[string]string{ConfigMapPath: cm, HelmValuesPath: helm} {
		got, err := os.ReadFile(filepath.Join("..", "..", "..", filepath.FromSlash(path)))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s differs from the generator's output (fix: go run ./hack/notifications -w)", path)
		}
	}
}
