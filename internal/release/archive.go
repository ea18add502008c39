package release

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// The UI extension's release files: the tarball argocd-extension-installer downloads
// (EXTENSION_URL) and the sums it checks it against (EXTENSION_CHECKSUM_URL). The installer
// copies the tarball's top-level resources/ into argocd-server's /tmp/extensions/resources;
// argocd-server serves every file there named extension*.js. The directory named
// extension-cmp-phase.js is where the installer writes EXTENSION_JS_VARS for the extension
// named cmp-phase (it looks for a directory matching extension*-<name>*.js).
const (
	UITarball   = "extension-cmp-phase.tar.gz"
	UIConfigMap = "extension-cmp-phase-configmap.yaml"
	UIChecksums = "extension-cmp-phase_checksums.txt"
	UIJSPath    = "resources/extension-cmp-phase.js/extension-cmp-phase.js"
)

// CLIArchive is the name of a platform's CLI archive, as plugins/cmp-phase.yaml's uris name it.
func CLIArchive(version string, p Platform) string {
	return fmt.Sprintf("cmp-phase_%s_%s_%s.tar.gz", version, p.OS, p.Arch)
}

// ChecksumsFile is the name of the release's SHA-256 sums.
func ChecksumsFile(version string) string { return "cmp-phase_" + version + "_checksums.txt" }

// writeCLIArchive writes dir/CLIArchive: the cmp-phase binary alone, at the top.
func writeCLIArchive(dir, version string, p Platform, bin string, epoch time.Time) (string, error) {
	return writeTarGz(filepath.Join(dir, CLIArchive(version, p)), []entry{{Name: "cmp-phase", Mode: 0o755, Src: bin}}, epoch)
}

// writeUITarball writes the UI extension's tarball and its sums from the built bundle js.
func writeUITarball(dir, js string, epoch time.Time) error {
	d := filepath.Dir(UIJSPath)
	if _, err := writeTarGz(filepath.Join(dir, UITarball), []entry{
		dirEntry("resources", 0o755, 0), dirEntry(d, 0o755, 0), {Name: UIJSPath, Mode: 0o644, Src: js},
	}, epoch); err != nil {
		return fmt.Errorf("%w (fix: build the UI, npm ci && npm run build in ui/)", err)
	}
	if err := writeUIConfigMap(filepath.Join(dir, UIConfigMap), js); err != nil {
		return err
	}
	return writeSums(filepath.Join(dir, UIChecksums), dir, []string{UITarball, UIConfigMap})
}

// maxUIConfigMap bounds the bundle a ConfigMap may carry: 1 MiB in all, with room for the
// object around it.
const maxUIConfigMap = 900 << 10

// writeUIConfigMap writes the ConfigMap cmp-phase-extension-ui holding the bundle under the
// key extension-cmp-phase.js, which manifests/extension mounts into argocd-server's
// extensions directory (nothing is downloaded when argocd-server starts; docs/ui.md). The
// value is a JSON string — YAML reads JSON — so the bundle stays one scalar, byte for byte.
func writeUIConfigMap(file, js string) error {
	b, err := os.ReadFile(js)
	if err != nil {
		return fmt.Errorf("read the UI bundle: %w (fix: build the UI, npm ci && npm run build in ui/)", err)
	}
	if len(b) > maxUIConfigMap {
		return fmt.Errorf("the UI bundle is %d bytes, too large for the ConfigMap (at most %d; fix: make the bundle smaller)", len(b), maxUIConfigMap)
	}
	value, err := json.Marshal(string(b))
	if err != nil {
		return err
	}
	cm := `# The cmp-phase UI extension for argocd-server (docs/ui.md). manifests/extension mounts this
# ConfigMap, optionally, into argocd-server's extensions directory: apply it in argocd's namespace.
apiVersion: v1
kind: ConfigMap
metadata:
  name: cmp-phase-extension-ui
  labels:
    app.kubernetes.io/part-of: argocd
    app.kubernetes.io/name: cmp-phase-extension-ui
data:
  extension-cmp-phase.js: ` + string(value) + "\n"
	if err := os.WriteFile(file, []byte(cm), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	return nil
}

func writeTarGz(file string, entries []entry, epoch time.Time) (string, error) {
	b, err := tarGz(entries, epoch)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", file, err)
	}
	return file, nil
}

// writeSums writes sha256sum's format (`sha256sum -c` reads it) for the files of dir
// named in names, sorted.
func writeSums(file, dir string, names []string) error {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	var b strings.Builder
	for _, n := range sorted {
		sum, err := SHA256File(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, n)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	return nil
}

// SHA256File is the hex SHA-256 of a file.
func SHA256File(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", fmt.Errorf("checksum: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("checksum %s: %w", file, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
