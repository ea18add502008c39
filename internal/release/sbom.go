package release

import (
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
)

// The SBOM is SPDX 2.3 JSON, made from what each binary records of its own build
// (debug/buildinfo: the Go version and every module linked in, replacements applied), so it
// lists exactly what was linked, not what go.mod requires.
type spdxDoc struct {
	SPDXVersion       string        `json:"spdxVersion"`
	DataLicense       string        `json:"dataLicense"`
	SPDXID            string        `json:"SPDXID"`
	Name              string        `json:"name"`
	DocumentNamespace string        `json:"documentNamespace"`
	CreationInfo      spdxCreation  `json:"creationInfo"`
	Packages          []spdxPackage `json:"packages"`
	Relationships     []spdxRel     `json:"relationships"`
}

type spdxCreation struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
}

// spdxPackage is one package of the SBOM.
type spdxPackage struct {
	Name                  string         `json:"name"`
	SPDXID                string         `json:"SPDXID"`
	VersionInfo           string         `json:"versionInfo,omitempty"`
	DownloadLocation      string         `json:"downloadLocation"`
	FilesAnalyzed         bool           `json:"filesAnalyzed"`
	Checksums             []spdxChecksum `json:"checksums,omitempty"`
	ExternalRefs          []spdxRef      `json:"externalRefs,omitempty"`
	PrimaryPackagePurpose string         `json:"primaryPackagePurpose,omitempty"`
	Comment               string         `json:"comment,omitempty"`
}

type spdxChecksum struct {
	Algorithm string `json:"algorithm"`
	Value     string `json:"checksumValue"`
}

type spdxRef struct {
	Category string `json:"referenceCategory"`
	Type     string `json:"referenceType"`
	Locator  string `json:"referenceLocator"`
}

type spdxRel struct {
	Element string `json:"spdxElementId"`
	Type    string `json:"relationshipType"`
	Related string `json:"relatedSpdxElement"`
}

// SBOMFile is the name of the release's SBOM.
func SBOMFile(version string) string { return "cmp-phase_" + version + ".spdx.json" }

// sbomBinary is one built binary the SBOM describes.
type sbomBinary struct {
	Name     string
	Platform Platform
	Path     string
	InImage  bool   // in the image's layers
	Archive  string // the CLI archive holding it, if one does
}

// sbom is what the SBOM is made of.
type sbom struct {
	Version, Image, ImageDigest, Namespace string
	Epoch                                  time.Time
	Binaries                               []sbomBinary
	CA                                     caPackage
}

// caPackage is the CA bundle the image carries: the file's SHA-256 and, when it is
// Debian's, the ca-certificates package's version.
type caPackage struct{ SHA256, DebVersion, Distro string }

var spdxIDUnsafe = regexp.MustCompile(`[^A-Za-z0-9.-]+`)

func spdxID(parts ...string) string {
	return "SPDXRef-" + spdxIDUnsafe.ReplaceAllString(strings.Join(parts, "-"), "-")
}

// write writes the SBOM to file.
func (s sbom) write(file string) error {
	doc := spdxDoc{SPDXVersion: "SPDX-2.3", DataLicense: "CC0-1.0", SPDXID: "SPDXRef-DOCUMENT",
		Name: "cmp-phase-" + s.Version, DocumentNamespace: s.Namespace,
		CreationInfo: spdxCreation{Created: s.Epoch.UTC().Format(time.RFC3339), Creators: []string{"Tool: cmp-phase-release-" + s.Version}}}
	modules := map[string]spdxPackage{}
	for _, b := range s.Binaries {
		pkg, deps, err := binaryPackage(s.Version, b)
		if err != nil {
			return err
		}
		doc.Packages = append(doc.Packages, pkg)
		if b.Archive != "" {
			doc.Relationships = append(doc.Relationships, spdxRel{"SPDXRef-DOCUMENT", "DESCRIBES", pkg.SPDXID})
		}
		for _, d := range deps {
			modules[d.SPDXID] = d
			doc.Relationships = append(doc.Relationships, spdxRel{pkg.SPDXID, "CONTAINS", d.SPDXID})
		}
	}
	doc.Packages = append(doc.Packages, sortedPackages(modules)...)
	if s.ImageDigest != "" {
		doc.Packages = append(doc.Packages, s.imagePackage(), s.caPackage())
		doc.Relationships = append(doc.Relationships, s.imageRelationships()...)
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("SBOM: %w", err)
	}
	if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write SBOM: %w", err)
	}
	return nil
}

func sortedPackages(m map[string]spdxPackage) []spdxPackage {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]spdxPackage, 0, len(ids))
	for _, id := range ids {
		out = append(out, m[id])
	}
	return out
}

// binaryPackage is b's package and the packages of what it links: the Go standard library
// and each module.
func binaryPackage(version string, b sbomBinary) (spdxPackage, []spdxPackage, error) {
	bi, err := buildinfo.ReadFile(b.Path)
	if err != nil {
		return spdxPackage{}, nil, fmt.Errorf("SBOM: build info of %s: %w", b.Path, err)
	}
	sum, err := SHA256File(b.Path)
	if err != nil {
		return spdxPackage{}, nil, err
	}
	pkg := spdxPackage{Name: b.Name, SPDXID: BinarySPDXID(b.Name, b.Platform), VersionInfo: version,
		DownloadLocation: "NOASSERTION", PrimaryPackagePurpose: "APPLICATION",
		Checksums:    []spdxChecksum{{"SHA256", sum}},
		ExternalRefs: []spdxRef{purl(fmt.Sprintf("pkg:golang/%s@%s?goos=%s&goarch=%s", bi.Main.Path, version, b.Platform.OS, b.Platform.Arch))},
		Comment:      binaryComment(b, bi.GoVersion)}
	goVersion := strings.TrimPrefix(bi.GoVersion, "go")
	deps := []spdxPackage{{Name: "stdlib", SPDXID: spdxID("Package", "go", "stdlib", goVersion), VersionInfo: bi.GoVersion,
		DownloadLocation: "https://go.dev/dl/", ExternalRefs: []spdxRef{purl("pkg:golang/stdlib@" + goVersion)}, PrimaryPackagePurpose: "LIBRARY"}}
	for _, m := range bi.Deps {
		comment := ""
		if m.Replace != nil {
			comment = "replaces " + m.Path + " " + m.Version
			m = m.Replace
		}
		deps = append(deps, spdxPackage{Name: m.Path, SPDXID: spdxID("Package", "go", m.Path, m.Version), VersionInfo: m.Version,
			DownloadLocation: "NOASSERTION", PrimaryPackagePurpose: "LIBRARY", Comment: strings.TrimSpace(comment + " " + m.Sum),
			ExternalRefs: []spdxRef{purl("pkg:golang/" + m.Path + "@" + strings.ReplaceAll(m.Version, "+", "%2B"))}})
	}
	return pkg, deps, nil
}

func binaryComment(b sbomBinary, goVersion string) string {
	where := []string{}
	if b.InImage {
		where = append(where, "the image's "+b.Platform.String()+" layers at /"+BinDir+"/"+b.Name)
	}
	if b.Archive != "" {
		where = append(where, b.Archive)
	}
	return fmt.Sprintf("%s for %s, built by %s; in %s", b.Name, b.Platform, goVersion, strings.Join(where, " and "))
}

// BinarySPDXID is the SPDX id the SBOM gives a binary.
func BinarySPDXID(name string, p Platform) string { return spdxID("Binary", name, p.OS, p.Arch) }

func purl(locator string) spdxRef { return spdxRef{"PACKAGE-MANAGER", "purl", locator} }

func (s sbom) imagePackage() spdxPackage {
	hexDigest := strings.TrimPrefix(s.ImageDigest, "sha256:")
	name := s.Image[strings.LastIndex(s.Image, "/")+1:]
	return spdxPackage{Name: s.Image, SPDXID: "SPDXRef-Image", VersionInfo: s.Version, DownloadLocation: s.Image + "@" + s.ImageDigest,
		PrimaryPackagePurpose: "CONTAINER", Checksums: []spdxChecksum{{"SHA256", hexDigest}},
		ExternalRefs: []spdxRef{purl("pkg:oci/" + name + "@" + url.QueryEscape(s.ImageDigest) + "?repository_url=" + url.QueryEscape(s.Image))},
		Comment:      "the OCI image index (every platform); its checksum is the index's digest"}
}

func (s sbom) caPackage() spdxPackage {
	p := spdxPackage{Name: "ca-certificates", SPDXID: "SPDXRef-Package-ca-certificates", DownloadLocation: "NOASSERTION",
		PrimaryPackagePurpose: "FILE", Checksums: []spdxChecksum{{"SHA256", s.CA.SHA256}},
		Comment: "/" + CAPath + " in the image: the build machine's CA bundle"}
	if s.CA.DebVersion != "" {
		p.VersionInfo = s.CA.DebVersion
		p.ExternalRefs = []spdxRef{purl("pkg:deb/debian/ca-certificates@" + url.PathEscape(s.CA.DebVersion) + "?distro=" + s.CA.Distro)}
	}
	return p
}

func (s sbom) imageRelationships() []spdxRel {
	rels := []spdxRel{{"SPDXRef-DOCUMENT", "DESCRIBES", "SPDXRef-Image"}, {"SPDXRef-Image", "CONTAINS", "SPDXRef-Package-ca-certificates"}}
	for _, b := range s.Binaries {
		if b.InImage {
			rels = append(rels, spdxRel{"SPDXRef-Image", "CONTAINS", BinarySPDXID(b.Name, b.Platform)})
		}
	}
	return rels
}
