// Package install checks what the install ships: one version names every image.
package install

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/filesys"
	"sigs.k8s.io/kustomize/api/krusty"
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
// Helm values name the image at exactly it — no :latest ships, so ?ref=<version> pins the
// image with the manifests (hack/stamp-version.sh writes all three). A release's copies of
// the manifests name the image by digest instead (hack/release.sh; test/release checks them).
func TestEveryImageIsPinnedToTheVersion(t *testing.T) {
	v := strings.TrimSpace(read(t, "VERSION"))
	if version.Canonical(v) != v {
		t.Fatalf("VERSION is %q, not a release vMAJOR.MINOR.PATCH (fix: hack/stamp-version.sh v0.1.0)", v)
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

// TestTheHelmValuesCarryTheRBAC: the Helm values' extraObjects are exactly what
// `kustomize build manifests/rbac` makes, so one helm upgrade installs the identities too.
func TestTheHelmValuesCarryTheRBAC(t *testing.T) {
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join("..", "..", "manifests", "rbac"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	var wantObjs []map[string]any
	for _, doc := range strings.Split(string(want), "\n---\n") {
		var o map[string]any
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatal(err)
		}
		wantObjs = append(wantObjs, o)
	}
	var values struct {
		ExtraObjects []map[string]any `json:"extraObjects"`
	}
	if err := yaml.Unmarshal([]byte(read(t, "manifests/helm/values.yaml")), &values); err != nil {
		t.Fatal(err)
	}
	key := func(o map[string]any) string {
		meta, _ := o["metadata"].(map[string]any)
		return fmt.Sprint(o["kind"], "/", meta["name"])
	}
	got := map[string]map[string]any{}
	for _, o := range values.ExtraObjects {
		got[key(o)] = o
	}
	if len(got) != len(wantObjs) {
		t.Fatalf("extraObjects holds %d objects, manifests/rbac %d (fix: copy manifests/rbac's objects into extraObjects)", len(got), len(wantObjs))
	}
	for _, w := range wantObjs {
		if !reflect.DeepEqual(got[key(w)], w) {
			t.Errorf("%s differs between manifests/rbac and the Helm values' extraObjects (fix: copy it over)\nrbac: %v\nhelm: %v", key(w), w, got[key(w)])
		}
	}
}
