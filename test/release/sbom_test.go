//go:build e2e

package release

import (
	"debug/buildinfo"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/release"
)

type spdx struct {
	SPDXVersion string `json:"spdxVersion"`
	Packages    []struct {
		Name, SPDXID, VersionInfo string
		Checksums                 []struct{ Algorithm, ChecksumValue string }
	}
	Relationships []struct {
		Element string `json:"spdxElementId"`
		Type    string `json:"relationshipType"`
		Related string `json:"relatedSpdxElement"`
	}
}

// checkSBOM: the SPDX document describes the image by the pushed digest and every binary by
// its SHA-256, each containing every module its build info records.
func (c *cut) checkSBOM(t *testing.T) {
	var doc spdx
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(c.out, release.SBOMFile(c.version)))), &doc); err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]string{} // SPDXID → SHA256 or name@version
	for _, p := range doc.Packages {
		pkgs[p.SPDXID] = p.Name + "@" + p.VersionInfo
		for _, s := range p.Checksums {
			pkgs[p.SPDXID] = s.ChecksumValue
		}
	}
	rel := map[[3]string]bool{}
	for _, r := range doc.Relationships {
		rel[[3]string{r.Element, r.Type, r.Related}] = true
	}
	if doc.SPDXVersion != "SPDX-2.3" || pkgs["SPDXRef-Image"] != c.digest.Hex || !rel[[3]string{"SPDXRef-DOCUMENT", "DESCRIBES", "SPDXRef-Image"}] {
		t.Errorf("SBOM %s: image package %q, want SPDX-2.3 describing the image by %s", doc.SPDXVersion, pkgs["SPDXRef-Image"], c.digest.Hex)
	}
	for p, bins := range c.bins {
		for name, bin := range bins {
			id := release.BinarySPDXID(name, p)
			if pkgs[id] != sha256Hex(t, bin) || !rel[[3]string{"SPDXRef-Image", "CONTAINS", id}] {
				t.Errorf("SBOM: %s is %q, want the image's %s for %s (%s) inside the image", id, pkgs[id], name, p, sha256Hex(t, bin))
			}
			checkModules(t, bin, id, pkgs, rel)
		}
	}
	for _, p := range c.cliPlatforms {
		if id := release.BinarySPDXID("cmp-phase", p); !rel[[3]string{"SPDXRef-DOCUMENT", "DESCRIBES", id}] || len(pkgs[id]) != 64 {
			t.Errorf("SBOM: %s (%q) is not described, with its checksum", id, pkgs[id])
		}
	}
}

// checkModules: the SBOM says bin contains every module its build info names.
func checkModules(t *testing.T, bin, id string, pkgs map[string]string, rel map[[3]string]bool) {
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]string{}
	for pid, nv := range pkgs {
		if rel[[3]string{id, "CONTAINS", pid}] {
			byName[nv] = pid
		}
	}
	if len(bi.Deps) < 20 {
		t.Errorf("%s records %d modules", bin, len(bi.Deps))
	}
	for _, m := range bi.Deps {
		if m.Replace != nil {
			m = m.Replace
		}
		if byName[m.Path+"@"+m.Version] == "" {
			t.Errorf("SBOM: %s does not contain %s@%s, which it links", id, m.Path, m.Version)
		}
	}
	if byName["stdlib@"+bi.GoVersion] == "" {
		t.Errorf("SBOM: %s does not contain the Go standard library %s", id, bi.GoVersion)
	}
}
