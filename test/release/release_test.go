//go:build e2e

// Package release tests hack/release.sh end to end: it cuts a release into a temp dir,
// pushes the image to an in-process OCI registry, pulls it back and checks every artifact
// against it. By default the whole release (the image for linux/amd64 and linux/arm64, the
// CLI for linux and darwin); CMP_PHASE_RELEASE_PLATFORMS=host cuts a partial one for this
// machine only (no krew manifest), for a quick run.
package release

import (
	"context"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/cmp-phase/cmp-phase/internal/release"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// cut is a release the test made, and what it expects of it.
type cut struct {
	root, out, version, revision string
	tmp                          string // the test's, kept for its subtests
	epoch                        time.Time
	imagePlatforms               []release.Platform
	cliPlatforms                 []release.Platform
	partial                      bool
	digest                       v1.Hash // the index's, as pushed and pulled back
	pinned                       string  // release.DefaultImage@digest
	index                        v1.ImageIndex
	bins                         map[release.Platform]release.Binaries // taken out of the pulled image
}

func TestRelease(t *testing.T) {
	c := cutRelease(t)
	c.pushAndPull(t)
	t.Run("index", c.checkIndex)
	t.Run("images", c.checkImages)
	t.Run("reproducible", c.checkReproducible)
	t.Run("manifests", c.checkManifests)
	t.Run("krew", c.checkKrew)
	t.Run("archives", c.checkArchives)
	t.Run("sums", c.checkSums)
	t.Run("ui", c.checkUI)
	t.Run("sbom", c.checkSBOM)
}

// cutRelease runs hack/release.sh for VERSION into a temp dir.
func cutRelease(t *testing.T) *cut {
	root := framework.RepoRoot()
	v, err := os.ReadFile(filepath.Join(root, "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	c := &cut{root: root, out: t.TempDir(), tmp: t.TempDir(), version: strings.TrimSpace(string(v)),
		imagePlatforms: release.ImagePlatforms, cliPlatforms: release.CLIPlatforms}
	switch p := os.Getenv("CMP_PHASE_RELEASE_PLATFORMS"); p {
	case "host":
		host := []release.Platform{{OS: "linux", Arch: runtime.GOARCH}}
		c.imagePlatforms, c.cliPlatforms, c.partial = host, host, true
	case "":
	default:
		t.Fatalf("CMP_PHASE_RELEASE_PLATFORMS=%q (fix: host, or unset)", p)
	}
	rev, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	c.revision = strings.TrimSpace(string(rev))
	if c.epoch, err = release.Epoch(root); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	cmd := exec.Command("bash", filepath.Join(root, "hack", "release.sh"), "--allow-dirty", c.version, c.out)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hack/release.sh: %v\n%s", err, out)
	}
	t.Logf("hack/release.sh %s took %s", c.version, time.Since(began).Round(time.Second))
	return c
}

// pushAndPull pushes the OCI layout to an in-process registry with the release's own push
// and pulls the index back by digest.
func (c *cut) pushAndPull(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	repo := strings.TrimPrefix(srv.URL, "http://") + "/cmp-phase/cmp-phase"
	var err error
	if c.digest, err = release.Push(context.Background(), filepath.Join(c.out, release.Layout), repo+":"+c.version); err != nil {
		t.Fatal(err)
	}
	c.pinned = release.DefaultImage + "@" + c.digest.String()
	ref, err := name.NewDigest(repo + "@" + c.digest.String())
	if err != nil {
		t.Fatal(err)
	}
	if c.index, err = remote.Index(ref); err != nil {
		t.Fatalf("pull %s: %v", ref, err)
	}
	tag, err := name.NewTag(repo + ":" + c.version)
	if err != nil {
		t.Fatal(err)
	}
	if tagged, err := remote.Head(tag); err != nil || tagged.Digest != c.digest {
		t.Fatalf("the registry's %s:%s is %v (%v), want the pushed %s", repo, c.version, tagged, err, c.digest)
	}
}
