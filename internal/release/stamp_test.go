package release

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testDigest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func testStamper() stamper {
	return stamper{Image: DefaultImage, Digest: testDigest, Version: "v1.2.3", Download: DownloadBase,
		Files: map[string]bool{"extension-cmp-phase.tar.gz": true}}
}

// TestStampKustomization: the images entry's newTag becomes the digest, every other line
// (comments included) as it was.
func TestStampKustomization(t *testing.T) {
	in := "# keep me\nimages:\n- name: cmp-phase\n  newName: ghcr.io/cmp-phase/cmp-phase\n  newTag: v0.1.0 # the version\n- name: other\n  newTag: v9\n"
	out, n, err := testStamper().file("base/kustomization.yaml", []byte(in))
	want := "# keep me\nimages:\n- name: cmp-phase\n  newName: ghcr.io/cmp-phase/cmp-phase\n  digest: " + testDigest + "\n- name: other\n  newTag: v9\n"
	if err != nil || n != 1 || string(out) != want {
		t.Fatalf("stamped (%d, %v):\n%s\nwant:\n%s", n, err, out, want)
	}
}

// TestStampImageLines: every image: line naming the image by tag (quoted or not, with a
// comment or not) names it by digest; other images stay as they were.
func TestStampImageLines(t *testing.T) {
	in := "a:\n  image: ghcr.io/cmp-phase/cmp-phase:v0.1.0\n  - image: \"ghcr.io/cmp-phase/cmp-phase:v0.1.0\" # pinned\nb:\n  image: quay.io/argoprojlabs/argocd-extension-installer:v0.0.8\n"
	out, n, err := testStamper().file("helm/values.yaml", []byte(in))
	pinned := DefaultImage + "@" + testDigest
	want := "a:\n  image: " + pinned + "\n  - image: \"" + pinned + "\" # pinned\nb:\n  image: quay.io/argoprojlabs/argocd-extension-installer:v0.0.8\n"
	if err != nil || n != 2 || string(out) != want {
		t.Fatalf("stamped (%d, %v):\n%s\nwant:\n%s", n, err, out, want)
	}
}

// TestStampDownloads: a release download URL gets the release's version, and one naming a
// file the release does not make is refused.
func TestStampDownloads(t *testing.T) {
	in := "url: " + DownloadBase + "/v0.1.0/extension-cmp-phase.tar.gz\n"
	out, _, err := testStamper().file("extension/server.yaml", []byte(in))
	if err != nil || string(out) != "url: "+DownloadBase+"/v1.2.3/extension-cmp-phase.tar.gz\n" {
		t.Fatalf("stamped (%v): %s", err, out)
	}
	_, _, err = testStamper().file("extension/server.yaml", []byte("url: "+DownloadBase+"/v0.1.0/extension.tar.gz\n"))
	if err == nil || !strings.Contains(err.Error(), "extension/server.yaml:1") {
		t.Fatalf("a download of a file the release lacks: %v", err)
	}
}

// TestStampRefusesWhatItCannotPin: a form the stamper does not know (the image split into
// repository and tag, a flow-style images entry, one with no tag) fails closed, naming the
// file and line, rather than shipping a tag.
func TestStampRefusesWhatItCannotPin(t *testing.T) {
	for _, c := range []struct{ name, in, why string }{
		{"helm/values.yaml", "image:\n  repository: ghcr.io/cmp-phase/cmp-phase\n  tag: v0.1.0\n", "not by the release's digest"},
		{"base/kustomization.yaml", "images:\n- {name: cmp-phase, newName: ghcr.io/cmp-phase/cmp-phase, newTag: v0.1.0}\n", "flow style"},
		{"other/kustomization.yaml", "images:\n- name: cmp-phase\n  newName: ghcr.io/cmp-phase/cmp-phase\n", "no newTag"},
		{"both/kustomization.yaml", "images:\n- newName: ghcr.io/cmp-phase/cmp-phase\n  newTag: v1\n  digest: " + testDigest + "\n", "both newTag and digest"},
	} {
		if _, _, err := testStamper().file(c.name, []byte(c.in)); err == nil || !strings.Contains(err.Error(), c.name+":") || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: %v, want an error naming the file and line and saying %q", c.name, err, c.why)
		}
	}
}

// TestStampTreeNeedsAReference: a tree naming the image nowhere is an error (the manifests
// changed shape), and a tree is copied whole, non-YAML files as they are.
func TestStampTreeNeedsAReference(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "dashboard.json"), []byte(`{"image":"ghcr.io/cmp-phase/cmp-phase:v0.1.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := testStamper().tree(src, dst); err == nil {
		t.Fatal("a tree naming the image nowhere in YAML was stamped")
	}
	if err := os.WriteFile(filepath.Join(src, "values.yaml"), []byte("image: ghcr.io/cmp-phase/cmp-phase:v0.1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := testStamper().tree(src, dst)
	b, _ := os.ReadFile(filepath.Join(dst, "dashboard.json"))
	if err != nil || n != 1 || !strings.Contains(string(b), ":v0.1.0") {
		t.Fatalf("stamped %d (%v); dashboard.json %s", n, err, b)
	}
}
