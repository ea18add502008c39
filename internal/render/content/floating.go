package content

import (
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// Floating is a reference in a file the digest covers to something a commit does not hold
// still: a remote kustomize base at a branch or tag, a Helm dependency by version range, an
// image by tag. The digest covers the file, not what it points at, so a rollout of the
// commit cannot hold what such a reference resolves to: it is reported, not phased.
type Floating struct {
	Pattern string // the cleaned pattern whose walk found the file
	File    string // repository-relative
	What    string // e.g. `resource github.com/org/base?ref=main (a branch or tag can move)`
}

// Bounds of the scan: build files per walk and bytes per file read.
const (
	maxBuildFiles = 200
	maxBuildBytes = 256 << 10
)

// isBuildFile says whether name is a file whose references the scan reads.
func isBuildFile(name string) bool {
	switch name {
	case "kustomization.yaml", "kustomization.yml", "Kustomization", "Chart.yaml":
		return true
	}
	return false
}

// floatingIn reads the build files the walk noted and returns their floating references,
// sorted. A file that cannot be read or parsed adds nothing: the render of the child will
// report it, and the digest already covers its bytes.
func floatingIn(r *os.Root, build map[string]int, pats []string) []Floating {
	var out []Floating
	for _, file := range sortedKeys(build) {
		b, err := readBounded(r, file)
		if err != nil {
			continue
		}
		pat := strings.TrimPrefix(pats[build[file]], optionalMark)
		for _, what := range floatingRefs(path.Base(file), b) {
			out = append(out, Floating{Pattern: pat, File: file, What: what})
		}
	}
	return out
}

func readBounded(r *os.Root, file string) ([]byte, error) {
	f, err := r.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxBuildBytes))
}

// buildFile is the part of a kustomization or a Chart.yaml the scan reads.
type buildFile struct {
	Resources  []string `json:"resources"`
	Bases      []string `json:"bases"`
	Components []string `json:"components"`
	Images     []struct {
		Name, NewName, NewTag, Digest string
	} `json:"images"`
	HelmCharts []struct {
		Name, Repo, Version string
	} `json:"helmCharts"`
	Dependencies []struct {
		Name, Version, Repository string
	} `json:"dependencies"`
}

// floatingRefs are the floating references of one build file's bytes.
func floatingRefs(name string, b []byte) []string {
	var f buildFile
	if yaml.Unmarshal(b, &f) != nil {
		return nil
	}
	if name == "Chart.yaml" {
		return chartRefs(f)
	}
	return kustomizationRefs(f)
}

// chartRefs are a Chart.yaml's floating references: dependencies from a remote repository
// at a version range.
func chartRefs(f buildFile) []string {
	var out []string
	for _, d := range f.Dependencies {
		if remoteChart(d.Repository) && !exactVersion(d.Version) {
			out = append(out, fmt.Sprintf("dependency %s %q from %s (a version range resolves to the newest match)", d.Name, d.Version, withoutUserinfo(d.Repository)))
		}
	}
	return out
}

// kustomizationRefs are a kustomization's floating references: remote bases not pinned to
// a commit, remote helm charts at a version range or none, and images at a tag without a
// digest.
func kustomizationRefs(f buildFile) []string {
	var out []string
	for _, ref := range slices.Concat(f.Resources, f.Bases, f.Components) {
		if remoteBase(ref) && !pinnedToCommit(ref) {
			out = append(out, fmt.Sprintf("remote base %s (a branch or tag can move)", withoutUserinfo(ref)))
		}
	}
	for _, c := range f.HelmCharts {
		if remoteChart(c.Repo) && !exactVersion(c.Version) {
			out = append(out, fmt.Sprintf("helm chart %s %q from %s (a version range or none resolves to the newest)", c.Name, c.Version, withoutUserinfo(c.Repo)))
		}
	}
	for _, im := range f.Images {
		if im.Digest == "" && im.NewTag != "" {
			name := im.NewName
			if name == "" {
				name = im.Name
			}
			out = append(out, fmt.Sprintf("image %s:%s (a tag can move; pin a digest)", name, im.NewTag))
		}
	}
	return out
}

var (
	commitRef    = regexp.MustCompile(`[?&](ref|version)=[0-9a-f]{40}([0-9a-f]{24})?(&|$)`)
	exactSemver  = regexp.MustCompile(`^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	remotePrefix = regexp.MustCompile(`^(https?://|git::|git@|ssh://|github\.com/|gitlab\.com/|bitbucket\.org/)`)
)

// userinfo is the user[:password]@ of a URL: a credential the plan, the state and Events
// must never carry.
var userinfo = regexp.MustCompile(`(://|^git::[a-z]+://|^)[^/@\s:]+(:[^/@\s]*)?@`)

// withoutUserinfo is ref without a user[:password]@ after its scheme; "git@host:" (the
// ssh form, no secret) is kept.
func withoutUserinfo(ref string) string {
	return userinfo.ReplaceAllStringFunc(ref, func(m string) string {
		if strings.HasPrefix(m, "git@") {
			return m
		}
		if i := strings.Index(m, "://"); i >= 0 {
			return m[:i+3]
		}
		return ""
	})
}

// remoteBase says whether a kustomization entry is a remote base (not a local path).
func remoteBase(ref string) bool { return remotePrefix.MatchString(ref) }

// pinnedToCommit says whether a remote base names a full commit SHA (?ref= or ?version=).
func pinnedToCommit(ref string) bool { return commitRef.MatchString(ref) }

// remoteChart says whether a chart repository is fetched (not a file:// or local one).
func remoteChart(repo string) bool {
	return repo != "" && !strings.HasPrefix(repo, "file://") && !strings.HasPrefix(repo, "@") && !strings.HasPrefix(repo, "alias:")
}

// exactVersion says whether a chart version names one release.
func exactVersion(v string) bool { return exactSemver.MatchString(strings.TrimSpace(v)) }
