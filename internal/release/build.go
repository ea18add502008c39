package release

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// Defaults: where the image is published, where the release's files are downloaded from,
// and the CA bundle the image carries (Debian's ca-certificates, Mozilla's roots).
const (
	DefaultImage    = "ghcr.io/cmp-phase/cmp-phase"
	DownloadBase    = "https://github.com/cmp-phase/cmp-phase/releases/download"
	DefaultCABundle = "/etc/ssl/certs/ca-certificates.crt"
	source          = "https://github.com/cmp-phase/cmp-phase"
)

// commands are the image's programs, by binary name.
var commands = map[string]string{"cmp-phase": "./cmd/cmp-phase", "agent": "./cmd/agent"}

// ImageBuild builds the image of each of Platforms: both binaries, built by Go, in the
// layers ImageSpec lays out. AgentTags are build tags for the agent alone (the end-to-end
// suites' crash switch; a release has none).
type ImageBuild struct {
	Go        GoBuild
	Spec      ImageSpec
	Platforms []Platform
	AgentTags []string
}

// Build builds the binaries into work and returns the index and each platform's binaries.
func (b ImageBuild) Build(ctx context.Context, work string) (v1.ImageIndex, map[Platform]Binaries, error) {
	if err := checkCABundle(b.Spec.CABundle); err != nil {
		return nil, nil, err
	}
	imgs := map[Platform]v1.Image{}
	bins := map[Platform]Binaries{}
	for _, p := range b.Platforms {
		bs, err := b.Go.buildAll(ctx, work, p, commands, map[string][]string{"agent": b.AgentTags})
		if err != nil {
			return nil, nil, err
		}
		if imgs[p], err = b.Spec.Image(p, bs); err != nil {
			return nil, nil, fmt.Errorf("image for %s: %w", p, err)
		}
		bins[p] = bs
	}
	return b.Spec.Index(b.Platforms, imgs), bins, nil
}

// Labels are the image's OCI labels (and its index's annotations).
func Labels(version, revision string, epoch time.Time) map[string]string {
	l := map[string]string{
		"org.opencontainers.image.title":       "cmp-phase",
		"org.opencontainers.image.description": "cmp-phase: the Argo CD plugin sidecar (cmp-phase serve), the CLI and the agent of phased multi-cluster rollouts",
		"org.opencontainers.image.source":      source,
		"org.opencontainers.image.created":     epoch.UTC().Format(time.RFC3339),
	}
	if version != "" {
		l["org.opencontainers.image.version"] = version
	}
	if revision != "" {
		l["org.opencontainers.image.revision"] = revision
	}
	return l
}

// debianCA is what the SBOM says of the CA bundle: its SHA-256 and, for Debian's bundle,
// the ca-certificates package's version and the distribution.
func debianCA(bundle string) (caPackage, error) {
	sum, err := SHA256File(bundle)
	if err != nil {
		return caPackage{}, err
	}
	ca := caPackage{SHA256: sum}
	if bundle != DefaultCABundle {
		return ca, nil
	}
	if v, err := exec.Command("dpkg-query", "-W", "-f=${Version}", "ca-certificates").Output(); err == nil {
		ca.DebVersion = strings.TrimSpace(string(v))
	}
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "VERSION_ID="); ok {
				ca.Distro = "debian-" + strings.Trim(v, `"`)
			}
		}
	}
	return ca, nil
}

// Epoch is the time a release's files carry: SOURCE_DATE_EPOCH when set, else the commit
// time of HEAD in root, so the same commit makes the same bytes.
func Epoch(root string) (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		out, err := exec.Command("git", "-C", root, "log", "-1", "--format=%ct").Output()
		if err != nil {
			return time.Time{}, fmt.Errorf("commit time of HEAD: %w (fix: run in a git checkout, or set SOURCE_DATE_EPOCH)", err)
		}
		s = strings.TrimSpace(string(out))
	}
	var sec int64
	if _, err := fmt.Sscan(s, &sec); err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: %w (fix: seconds since 1970)", s, err)
	}
	return time.Unix(sec, 0).UTC(), nil
}

// PluginYAML is the repository's plugin.yaml, which the image carries.
func PluginYAML(root string) string { return filepath.Join(root, "plugin.yaml") }
