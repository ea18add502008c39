package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// krewManifest is what the tests read of a krew plugin manifest.
type krewManifest struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version          string         `json:"version"`
		ShortDescription string         `json:"shortDescription"`
		Platforms        []krewPlatform `json:"platforms"`
	} `json:"spec"`
}

type krewPlatform struct {
	Selector struct {
		MatchLabels map[string]string `json:"matchLabels"`
	} `json:"selector"`
	URI    string `json:"uri"`
	SHA256 string `json:"sha256"`
	Bin    string `json:"bin"`
	Files  []struct {
		From string `json:"from"`
		To   string `json:"to"`
	} `json:"files"`
}

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// placeholder is the sha256 the manifest in git carries for a platform, which
// hack/stamp-krew.sh replaces with its archive's digest.
func (p krewPlatform) placeholder() string {
	return "SHA256_" + strings.ToUpper(p.Selector.MatchLabels["os"]+"_"+p.Selector.MatchLabels["arch"])
}

// readKrew reads a manifest and checks what holds stamped or not: the binary installed
// under the name kubectl runs for `kubectl cmp-phase` (kubectl-cmp_phase) on every
// platform, from an archive of the manifest's version.
func readKrew(t *testing.T, file string) krewManifest {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var m krewManifest
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Kind != "Plugin" || m.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || m.Metadata.Name != "cmp-phase" || m.Spec.ShortDescription == "" || len(m.Spec.Platforms) < 2 {
		t.Fatalf("%+v", m)
	}
	for _, p := range m.Spec.Platforms {
		if p.Bin != "kubectl-cmp_phase" || len(p.Files) == 0 || p.Files[0].From != "cmp-phase" || p.Files[0].To != p.Bin || !strings.Contains(p.URI, m.Spec.Version) {
			t.Errorf("platform %+v: want the cmp-phase binary as kubectl-cmp_phase", p)
		}
	}
	return m
}

// TestKrewManifest: the manifest in git installs this binary as kubectl-cmp_phase on every
// platform, and every platform carries a sha256 (krew refuses one without): a real digest,
// or the platform's own placeholder, SHA256_<OS>_<ARCH>, that hack/stamp-krew.sh replaces.
func TestKrewManifest(t *testing.T) {
	m := readKrew(t, "../../plugins/cmp-phase.yaml")
	for _, p := range m.Spec.Platforms {
		if !sha256Hex.MatchString(p.SHA256) && p.SHA256 != p.placeholder() {
			t.Errorf("platform %s: sha256 %q is neither a 64-hex digest nor the placeholder %s hack/stamp-krew.sh replaces", p.URI, p.SHA256, p.placeholder())
		}
	}
}

// TestKrewManifestStamped runs the release step, hack/stamp-krew.sh, on a directory of fake
// archives: the manifest it writes names the version and carries, for every platform, the
// SHA-256 of the archive its uri names — no placeholder left. With one archive missing it
// fails, naming it, and writes nothing.
func TestKrewManifestStamped(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash runs the release step; not here")
	}
	dir := t.TempDir()
	src := readKrew(t, "../../plugins/cmp-phase.yaml")
	digests := map[string]string{}
	for _, p := range src.Spec.Platforms {
		name := path.Base(strings.ReplaceAll(p.URI, "VERSION", "v1.2.3"))
		digests[name] = writeFakeArchive(t, filepath.Join(dir, name), p.placeholder())
	}
	if out, err := exec.Command("bash", "../../hack/stamp-krew.sh", "v1.2.3", dir).CombinedOutput(); err != nil {
		t.Fatalf("stamp-krew: %v\n%s", err, out)
	}
	m := readKrew(t, filepath.Join(dir, "cmp-phase.yaml"))
	if m.Spec.Version != "v1.2.3" || len(m.Spec.Platforms) != len(src.Spec.Platforms) {
		t.Fatalf("stamped version %q with %d platforms", m.Spec.Version, len(m.Spec.Platforms))
	}
	for _, p := range m.Spec.Platforms {
		if !sha256Hex.MatchString(p.SHA256) || p.SHA256 != digests[path.Base(p.URI)] {
			t.Errorf("platform %s: sha256 %q, want the archive's %s", p.URI, p.SHA256, digests[path.Base(p.URI)])
		}
	}

	missing := path.Base(strings.ReplaceAll(src.Spec.Platforms[0].URI, "VERSION", "v1.2.4"))
	for name := range digests {
		if err := os.Rename(filepath.Join(dir, name), filepath.Join(dir, strings.ReplaceAll(name, "v1.2.3", "v1.2.4"))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(dir, missing)); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("bash", "../../hack/stamp-krew.sh", "v1.2.4", dir, filepath.Join(dir, "v1.2.4.yaml")).CombinedOutput()
	if err == nil || !strings.Contains(string(out), missing) {
		t.Fatalf("with %s missing: %v\n%s", missing, err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "v1.2.4.yaml")); !os.IsNotExist(err) {
		t.Fatalf("a failed stamp wrote a manifest: %v", err)
	}
}

// writeFakeArchive writes a tar.gz holding a file named cmp-phase whose content is body,
// and returns the archive's SHA-256.
func writeFakeArchive(t *testing.T, file, body string) string {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: "cmp-phase", Mode: 0o755, Size: int64(len(body))}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write([]byte(body)); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:])
}
