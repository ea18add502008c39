//go:build e2e

package release

import (
	"archive/tar"
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/google/go-containerregistry/pkg/v1/validate"

	"github.com/cmp-phase/cmp-phase/internal/release"
)

// checkIndex: the pulled index is an OCI index of exactly the release's platforms, every
// blob matches its digest, and the release's image file names it.
func (c *cut) checkIndex(t *testing.T) {
	if err := validate.Index(c.index); err != nil {
		t.Fatalf("the pulled index does not validate: %v", err)
	}
	m, err := c.index.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var got []release.Platform
	for _, d := range m.Manifests {
		if d.MediaType != types.OCIManifestSchema1 || d.Platform == nil {
			t.Errorf("index entry %s: media type %s, platform %v; want an OCI image manifest with its platform", d.Digest, d.MediaType, d.Platform)
			continue
		}
		got = append(got, release.Platform{OS: d.Platform.OS, Arch: d.Platform.Architecture})
	}
	if m.MediaType != types.OCIImageIndex || !slices.Equal(got, c.imagePlatforms) {
		t.Errorf("index %s of %v, want an OCI index of %v", m.MediaType, got, c.imagePlatforms)
	}
	if m.Annotations["org.opencontainers.image.version"] != c.version || m.Annotations["org.opencontainers.image.revision"] != c.revision {
		t.Errorf("index annotations %v, want version %s and revision %s", m.Annotations, c.version, c.revision)
	}
	if ref := readFile(t, filepath.Join(c.out, release.ImageRefFile(c.version))); ref != c.pinned+"\n" {
		t.Errorf("%s says %q, want the pushed %s", release.ImageRefFile(c.version), ref, c.pinned)
	}
}

// checkImages: each platform's image runs cmp-phase as uid 999, holds exactly the files a
// release image holds, and its binaries are static, for its platform, stamped with the
// version (the host's are run). It keeps the binaries for the other checks.
func (c *cut) checkImages(t *testing.T) {
	c.bins = map[release.Platform]release.Binaries{}
	for _, p := range c.imagePlatforms {
		img, err := release.PlatformImage(c.index, p)
		if err != nil {
			t.Fatal(err)
		}
		c.checkConfig(t, p, img)
		checkFilesystem(t, c.root, img)
		dir := filepath.Join(c.tmp, p.OS+"_"+p.Arch)
		bins := release.Binaries{"cmp-phase": filepath.Join(dir, "cmp-phase"), "agent": filepath.Join(dir, "agent")}
		if err := release.Extract(img, map[string]string{release.BinDir + "/cmp-phase": bins["cmp-phase"], release.BinDir + "/agent": bins["agent"]}); err != nil {
			t.Fatal(err)
		}
		c.bins[p] = bins
		for _, b := range bins {
			c.checkBinary(t, b, p)
		}
	}
}

func (c *cut) checkConfig(t *testing.T, p release.Platform, img v1.Image) {
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.OS != p.OS || cf.Architecture != p.Arch || cf.Config.User != "999:999" ||
		!slices.Equal(cf.Config.Entrypoint, []string{"/usr/local/bin/cmp-phase"}) || !cf.Created.Time.Equal(c.epoch) ||
		cf.Config.Labels["org.opencontainers.image.version"] != c.version {
		t.Errorf("%s config: %s/%s user %q entrypoint %v created %s labels %v; want %s, user 999:999, /usr/local/bin/cmp-phase, created %s, version %s",
			p, cf.OS, cf.Architecture, cf.Config.User, cf.Config.Entrypoint, cf.Created, cf.Config.Labels, p, c.epoch, c.version)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range layers {
		if mt, _ := l.MediaType(); mt != types.OCILayer {
			t.Errorf("%s layer media type %s, want %s", p, mt, types.OCILayer)
		}
	}
}

// imageFile is what the test expects of one path of the image's filesystem.
type imageFile struct {
	mode     int64
	uid      int
	sameAs   string // a file whose content it must have
	contains string
}

// checkFilesystem: the flattened filesystem is exactly these paths, with these owners and modes.
func checkFilesystem(t *testing.T, root string, img v1.Image) {
	want := map[string]imageFile{
		"etc": {mode: 0o755}, "etc/ssl": {mode: 0o755}, "etc/ssl/certs": {mode: 0o755},
		"etc/passwd": {mode: 0o644, contains: "argocd:x:999:999:"}, "etc/group": {mode: 0o644, contains: "argocd:x:999:"},
		"etc/ssl/certs/ca-certificates.crt": {mode: 0o644, sameAs: release.DefaultCABundle},
		"home":                              {mode: 0o755}, "home/argocd": {mode: 0o755, uid: 999}, "home/argocd/cmp-server": {mode: 0o755, uid: 999},
		"home/argocd/cmp-server/config": {mode: 0o755, uid: 999}, "home/argocd/cmp-server/plugins": {mode: 0o755, uid: 999},
		"home/argocd/cmp-server/config/plugin.yaml": {mode: 0o644, sameAs: filepath.Join(root, "plugin.yaml")},
		"tmp": {mode: 0o1777}, "usr": {mode: 0o755}, "usr/local": {mode: 0o755}, "usr/local/bin": {mode: 0o755},
		"usr/local/bin/cmp-phase": {mode: 0o755}, "usr/local/bin/agent": {mode: 0o755},
	}
	tr := tar.NewReader(mutate.Extract(img))
	seen := map[string]bool{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(h.Name, "/")
		seen[name] = true
		w, ok := want[name]
		if !ok {
			t.Errorf("the image holds %s, which a release image does not", name)
			continue
		}
		body, _ := io.ReadAll(tr)
		if h.Mode&0o7777 != w.mode || h.Uid != w.uid || h.Gid != w.uid || (w.sameAs != "" && !slices.Equal(body, []byte(readFile(t, w.sameAs)))) ||
			!strings.Contains(string(body), w.contains) {
			t.Errorf("%s: mode %o uid %d gid %d (%d bytes); want mode %o, uid and gid %d, content %q %q", h.Name, h.Mode, h.Uid, h.Gid, len(body), w.mode, w.uid, w.sameAs, w.contains)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("the image lacks %s", name)
		}
	}
}

// checkBinary: a static ELF for p, built without cgo, trimmed, without build tags; on this
// machine's platform it runs and says the version (-trimpath keeps -ldflags, and so the
// stamp, out of the build info).
func (c *cut) checkBinary(t *testing.T, bin string, p release.Platform) {
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatalf("%s for %s: %v", bin, p, err)
	}
	defer f.Close()
	machine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[p.Arch]
	dynamic := slices.ContainsFunc(f.Progs, func(pr *elf.Prog) bool { return pr.Type == elf.PT_INTERP })
	if f.Machine != machine || dynamic {
		t.Errorf("%s for %s: machine %s, dynamically linked %v; want %s, static", bin, p, f.Machine, dynamic, machine)
	}
	checkBuildInfo(t, bin, p)
	if p.OS != runtime.GOOS || p.Arch != runtime.GOARCH {
		return
	}
	arg := map[string]string{"cmp-phase": "version", "agent": "--version"}[filepath.Base(bin)]
	out, err := exec.Command(bin, arg).CombinedOutput()
	if err != nil || !strings.Contains(string(out), c.version) {
		t.Errorf("%s %s: %v %q, want it to say %s", bin, arg, err, out, c.version)
	}
}

func checkBuildInfo(t *testing.T, bin string, p release.Platform) {
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	s := map[string]string{}
	for _, kv := range bi.Settings {
		s[kv.Key] = kv.Value
	}
	if s["CGO_ENABLED"] != "0" || s["-trimpath"] != "true" || s["GOOS"] != p.OS || s["GOARCH"] != p.Arch || s["-tags"] != "" {
		t.Errorf("%s for %s: build settings %v; want CGO_ENABLED=0, -trimpath, no tags", bin, p, s)
	}
}

// checkReproducible: the same binaries, time and labels make the same index, byte for byte:
// the image is exactly its files, assembled deterministically.
func (c *cut) checkReproducible(t *testing.T) {
	if c.bins == nil {
		t.Skip("no binaries: the images check failed")
	}
	spec := release.ImageSpec{Epoch: c.epoch, CABundle: release.DefaultCABundle, PluginYAML: release.PluginYAML(c.root),
		Labels: release.Labels(c.version, c.revision, c.epoch)}
	imgs := map[release.Platform]v1.Image{}
	for _, p := range c.imagePlatforms {
		img, err := spec.Image(p, c.bins[p])
		if err != nil {
			t.Fatal(err)
		}
		imgs[p] = img
	}
	got, err := spec.Index(c.imagePlatforms, imgs).Digest()
	if err != nil {
		t.Fatal(err)
	}
	if got != c.digest {
		t.Errorf("rebuilt from the same files the index is %s, not the release's %s", got, c.digest)
	}
}

func readFile(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func sha256Hex(t *testing.T, file string) string {
	t.Helper()
	sum := sha256.Sum256([]byte(readFile(t, file)))
	return hex.EncodeToString(sum[:])
}
