package release

import (
	"archive/tar"
	"os"
	"path/filepath"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

func testSpec(t *testing.T, epoch time.Time) (ImageSpec, Binaries) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"ca.crt": "not checked here", "plugin.yaml": "kind: ConfigManagementPlugin\n", "cmp-phase": "cli", "agent": "agent"}
	for n, body := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return ImageSpec{Epoch: epoch, CABundle: filepath.Join(dir, "ca.crt"), PluginYAML: filepath.Join(dir, "plugin.yaml"), Labels: Labels("v1.2.3", "abc", epoch)},
		Binaries{"cmp-phase": filepath.Join(dir, "cmp-phase"), "agent": filepath.Join(dir, "agent")}
}

// TestImageIsReproducible: the same files and time make the same index digest; another
// time makes another (the time is in the layers and the config, nothing else varies).
func TestImageIsReproducible(t *testing.T) {
	epoch := time.Unix(1_800_000_000, 0)
	digest := func(epoch time.Time) string {
		spec, bins := testSpec(t, epoch)
		ps := []Platform{{"linux", "amd64"}, {"linux", "arm64"}}
		imgs := map[Platform]v1.Image{}
		for _, p := range ps {
			img, err := spec.Image(p, bins)
			if err != nil {
				t.Fatal(err)
			}
			imgs[p] = img
		}
		d, err := spec.Index(ps, imgs).Digest()
		if err != nil {
			t.Fatal(err)
		}
		return d.String()
	}
	a, b, c := digest(epoch), digest(epoch), digest(epoch.Add(time.Second))
	if a != b || a == c {
		t.Fatalf("digests %s, %s (same inputs), %s (a second later): want the first two equal, the third not", a, b, c)
	}
}

// TestLayersCarryTheEpoch: every entry of every layer has the release's time, so the
// layers' bytes do not depend on when or where they were built.
func TestLayersCarryTheEpoch(t *testing.T) {
	epoch := time.Unix(1_800_000_000, 0).UTC()
	spec, bins := testSpec(t, epoch)
	img, err := spec.Image(Platform{"linux", "amd64"}, bins)
	if err != nil {
		t.Fatal(err)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 2 {
		t.Fatalf("%d layers (%v), want 2", len(layers), err)
	}
	n := 0
	for _, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		for h, err := tr.Next(); err == nil; h, err = tr.Next() {
			n++
			if !h.ModTime.Equal(epoch) || h.Uname != "" || h.Gname != "" {
				t.Errorf("%s: mtime %s, owner %q:%q; want %s and no names", h.Name, h.ModTime, h.Uname, h.Gname, epoch)
			}
		}
		rc.Close()
	}
	if n < 10 {
		t.Fatalf("%d layer entries", n)
	}
}

// TestCheckCABundle: the image's CA bundle must be PEM certificates.
func TestCheckCABundle(t *testing.T) {
	f := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(f, []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkCABundle(f); err == nil {
		t.Fatal("a bundle of one certificate passed")
	}
	if err := checkCABundle(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("a missing bundle passed")
	}
}
