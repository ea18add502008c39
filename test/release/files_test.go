//go:build e2e

package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"debug/macho"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/filesys"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/release"
)

// tarFiles reads a .tar.gz: each entry's name → content (a directory's is "/dir").
func tarFiles(t *testing.T, file string) map[string][]byte {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader([]byte(readFile(t, file))))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	out := map[string][]byte{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		b, _ := io.ReadAll(tr)
		if h.Typeflag == tar.TypeDir {
			b = []byte("/dir")
		} else if h.Mode&0o111 != 0 {
			b = append([]byte("exec:"), b...)
		}
		out[h.Name] = b
	}
}

// checkArchives: each CLI archive holds the cmp-phase binary alone, executable, for its
// platform; on linux the very binary the image carries.
func (c *cut) checkArchives(t *testing.T) {
	for _, p := range c.cliPlatforms {
		files := tarFiles(t, filepath.Join(c.out, release.CLIArchive(c.version, p)))
		bin, ok := files["cmp-phase"]
		if len(files) != 1 || !ok || !bytes.HasPrefix(bin, []byte("exec:")) {
			t.Errorf("%s holds %d files, want the executable cmp-phase alone", release.CLIArchive(c.version, p), len(files))
			continue
		}
		bin = bin[len("exec:"):]
		if img, ok := c.bins[p]; ok && !bytes.Equal(bin, []byte(readFile(t, img["cmp-phase"]))) {
			t.Errorf("%s: cmp-phase differs from the image's", release.CLIArchive(c.version, p))
		}
		if p.OS == "darwin" {
			f, err := macho.NewFile(bytes.NewReader(bin))
			want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[p.Arch]
			if err != nil || f.Cpu != want {
				t.Errorf("%s: %v, cpu %v; want a Mach-O for %s", release.CLIArchive(c.version, p), err, f, want)
			}
		}
	}
}

// checkKrew: the stamped krew manifest names the version and, for every platform, the
// SHA-256 of the archive its uri downloads.
func (c *cut) checkKrew(t *testing.T) {
	if c.partial {
		t.Skip("a partial release has no krew manifest")
	}
	var m struct {
		Spec struct {
			Version   string
			Platforms []struct{ URI, SHA256 string }
		}
	}
	if err := yaml.Unmarshal([]byte(readFile(t, filepath.Join(c.out, release.KrewManifest))), &m); err != nil {
		t.Fatal(err)
	}
	if m.Spec.Version != c.version || len(m.Spec.Platforms) != len(c.cliPlatforms) {
		t.Fatalf("krew manifest: version %s with %d platforms, want %s with %d", m.Spec.Version, len(m.Spec.Platforms), c.version, len(c.cliPlatforms))
	}
	for _, p := range m.Spec.Platforms {
		file := path.Base(p.URI)
		if p.URI != release.DownloadBase+"/"+c.version+"/"+file || p.SHA256 != sha256Hex(t, filepath.Join(c.out, file)) {
			t.Errorf("krew platform %s: sha256 %s, want the release's %s", p.URI, p.SHA256, file)
		}
	}
}

// checkSums: the sums file covers every file to attach, and each sum is right.
func (c *cut) checkSums(t *testing.T) {
	sums := release.ChecksumsFile(c.version)
	cmd := exec.Command("sha256sum", "--strict", "-c", sums)
	cmd.Dir = c.out
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("sha256sum -c %s: %v\n%s", sums, err, out)
	}
	var listed, files []string
	for _, l := range strings.Split(strings.TrimSpace(readFile(t, filepath.Join(c.out, sums))), "\n") {
		listed = append(listed, l[strings.Index(l, "  ")+2:])
	}
	entries, _ := os.ReadDir(c.out)
	for _, e := range entries {
		if !e.IsDir() && e.Name() != sums {
			files = append(files, e.Name())
		}
	}
	if !slices.Equal(listed, files) {
		t.Errorf("%s lists %v, want every file of the release: %v", sums, listed, files)
	}
}

// checkUI: the extension tarball is in the layout argocd-extension-installer takes
// (resources/ at the top, the bundle in a directory named extension-cmp-phase.js), and its
// sums file names it with its SHA-256.
func (c *cut) checkUI(t *testing.T) {
	files := tarFiles(t, filepath.Join(c.out, release.UITarball))
	js := files["resources/extension-cmp-phase.js/extension-cmp-phase.js"]
	if len(files) != 3 || string(files["resources/"]) != "/dir" || string(files["resources/extension-cmp-phase.js/"]) != "/dir" ||
		!bytes.Contains(js, []byte("extensionsAPI")) {
		t.Errorf("%s holds %d entries (%d bytes of js), want resources/extension-cmp-phase.js/extension-cmp-phase.js registering with extensionsAPI", release.UITarball, len(files), len(js))
	}
	cm := readFile(t, filepath.Join(c.out, release.UIConfigMap))
	var obj struct {
		Metadata struct{ Name string }
		Data     map[string]string
	}
	if err := yaml.Unmarshal([]byte(cm), &obj); err != nil || obj.Metadata.Name != "cmp-phase-extension-ui" || obj.Data["extension-cmp-phase.js"] != string(js) {
		t.Errorf("%s: not the ConfigMap cmp-phase-extension-ui holding the tarball's bundle byte for byte (err %v)", release.UIConfigMap, err)
	}
	want := sha256Hex(t, filepath.Join(c.out, release.UIConfigMap)) + "  " + release.UIConfigMap + "\n" + // sorted, as sha256sum lists
		sha256Hex(t, filepath.Join(c.out, release.UITarball)) + "  " + release.UITarball + "\n"
	if got := readFile(t, filepath.Join(c.out, release.UIChecksums)); got != want {
		t.Errorf("%s: %q, want %q", release.UIChecksums, got, want)
	}
}

var downloadRe = regexp.MustCompile(regexp.QuoteMeta(release.DownloadBase) + `/([^/\s"']+)/([^\s"'#]+)`)

// checkManifests: the stamped manifests name the image only by the pushed digest (after
// kustomize builds them over Argo CD's install, and in the Helm values), download only this
// release's files, and the manifests archive holds exactly them.
func (c *cut) checkManifests(t *testing.T) {
	dir := filepath.Join(c.out, release.Manifests)
	inArchive := tarFiles(t, filepath.Join(c.out, release.ManifestsArchive(c.version)))
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(c.out, p)
		body := readFile(t, p)
		if string(inArchive[filepath.ToSlash(rel)]) != body {
			t.Errorf("%s differs in %s", rel, release.ManifestsArchive(c.version))
		}
		n++
		if strings.Contains(body, release.DefaultImage+":") {
			t.Errorf("%s names %s by tag", rel, release.DefaultImage)
		}
		for _, m := range downloadRe.FindAllStringSubmatch(body, -1) {
			if _, err := os.Stat(filepath.Join(c.out, m[2])); m[1] != c.version || err != nil {
				t.Errorf("%s downloads %s/%s, not a file of this release", rel, m[1], m[2])
			}
		}
		return nil
	})
	if err != nil || n == 0 || len(inArchive) < n {
		t.Fatalf("walk %s: %v, %d files, %d in the archive", dir, err, n, len(inArchive))
	}
	c.checkKustomize(t, dir)
	c.checkHelmValues(t)
}

// checkKustomize builds the stamped components over Argo CD's install (from its module):
// every cmp-phase container runs the pinned image.
func (c *cut) checkKustomize(t *testing.T, manifests string) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/argoproj/argo-cd/v3").Output()
	if err != nil {
		t.Fatalf("locate argo-cd's module: %v", err)
	}
	install := readFile(t, filepath.Join(strings.TrimSpace(string(out)), "manifests", "install.yaml"))
	for _, component := range []string{"base", "overlays/agent-deployment"} {
		dir := t.TempDir()
		rel, err := filepath.Rel(dir, filepath.Join(manifests, component))
		if err != nil {
			t.Fatal(err)
		}
		k := "namespace: argocd\nresources: [install.yaml]\ncomponents: [" + rel + "]\n"
		for name, body := range map[string]string{"kustomization.yaml": k, "install.yaml": install} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		opts := krusty.MakeDefaultOptions()
		opts.LoadRestrictions = types.LoadRestrictionsNone
		m, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
		if err != nil {
			t.Fatalf("kustomize build with %s: %v", component, err)
		}
		y, err := m.AsYaml()
		if err != nil {
			t.Fatal(err)
		}
		ours := ourImages(t, y)
		if len(ours) < 2 || slices.ContainsFunc(ours, func(s string) bool { return s != c.pinned }) {
			t.Errorf("with %s the cmp-phase containers run %v, want %s", component, ours, c.pinned)
		}
	}
}

// ourImages are the images of the YAML's containers that are cmp-phase's.
func ourImages(t *testing.T, y []byte) []string {
	var ours []string
	for _, m := range regexp.MustCompile(`(?m)^\s*(?:-\s+)?image:\s*["']?([^"'\s]+)`).FindAllSubmatch(y, -1) {
		if img := string(m[1]); strings.Contains(img, "cmp-phase") {
			ours = append(ours, img)
		}
	}
	return ours
}

// checkHelmValues: the Helm values files attached to the release name the pinned image.
func (c *cut) checkHelmValues(t *testing.T) {
	values := readFile(t, filepath.Join(c.out, release.HelmValues("values.yaml")))
	var v map[string]any
	if err := yaml.Unmarshal([]byte(values), &v); err != nil {
		t.Fatal(err)
	}
	ours := ourImages(t, []byte(values))
	if len(ours) < 2 || slices.ContainsFunc(ours, func(s string) bool { return s != c.pinned }) {
		t.Errorf("%s: cmp-phase's containers run %v, want %s", release.HelmValues("values.yaml"), ours, c.pinned)
	}
}
