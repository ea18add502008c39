// Package install checks what the install ships: one version names every image.
package install

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/version"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", path))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEveryImageIsPinnedToTheVersion: VERSION is a release, and the kustomize base and the
// Helm values name the image at exactly it, and the cmp-phase chart is that version — no
// :latest ships, so ?ref=<version> pins the image with the manifests (hack/stamp-version.sh
// writes them all). A release's copies of the manifests name the image by digest instead
// (hack/release.sh; test/release checks them).
func TestEveryImageIsPinnedToTheVersion(t *testing.T) {
	v := strings.TrimSpace(read(t, "VERSION"))
	if version.Canonical(v) != v {
		t.Fatalf("VERSION is %q, not a release vMAJOR.MINOR.PATCH (fix: hack/stamp-version.sh v0.1.0)", v)
	}
	if version.Base != v {
		t.Errorf("internal/version.Base is %s, not VERSION %s: a development build would judge min-version as another release (fix: hack/stamp-version.sh %s)", version.Base, v, v)
	}
	var k struct {
		Images []struct{ Name, NewName, NewTag string }
	}
	if err := yaml.Unmarshal([]byte(read(t, "manifests/base/kustomization.yaml")), &k); err != nil {
		t.Fatal(err)
	}
	if len(k.Images) == 0 {
		t.Fatal("manifests/base names no image")
	}
	for _, img := range k.Images {
		if img.NewTag != v {
			t.Errorf("manifests/base/kustomization.yaml: image %s at %q, not VERSION %s (fix: hack/stamp-version.sh %s)", img.Name, img.NewTag, v, v)
		}
	}
	images := regexp.MustCompile(`image:\s*(\S+)`).FindAllStringSubmatch(read(t, "manifests/helm/values.yaml"), -1)
	if len(images) < 2 {
		t.Fatalf("manifests/helm/values.yaml names %d images, want the sidecar's and the agent's", len(images))
	}
	for _, m := range images {
		if !strings.HasSuffix(m[1], ":"+v) {
			t.Errorf("manifests/helm/values.yaml: image %s, not at VERSION %s (fix: hack/stamp-version.sh %s)", m[1], v, v)
		}
	}
	var chart struct{ Version, AppVersion string }
	if err := yaml.Unmarshal([]byte(read(t, "manifests/helm/cmp-phase/Chart.yaml")), &chart); err != nil {
		t.Fatal(err)
	}
	if chart.AppVersion != v || "v"+chart.Version != v {
		t.Errorf("manifests/helm/cmp-phase/Chart.yaml: version %s, appVersion %s, not VERSION %s (fix: hack/stamp-version.sh %s)", chart.Version, chart.AppVersion, v, v)
	}
	for _, dir := range []string{"manifests", "examples"} {
		_ = filepath.WalkDir(filepath.Join("..", "..", dir), func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".yaml") {
				if b, _ := os.ReadFile(path); regexp.MustCompile(`(:latest\b|newTag:\s*latest)`).Match(b) {
					t.Errorf("%s ships an image at latest (fix: pin it to VERSION)", path)
				}
			}
			return nil
		})
	}
}
