package release

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/version"
)

// Options are a release's inputs.
type Options struct {
	Root           string // the repository's root
	Out            string // an empty or new directory
	Version        string // vMAJOR.MINOR.PATCH[-pre]
	Revision       string // the commit, for the image's labels
	Image          string // the repository the image is pushed to
	ImagePlatforms []Platform
	CLIPlatforms   []Platform
	UIJS           string // ui/dist/extension-cmp-phase.js, built
	CABundle       string
	Epoch          time.Time
	// Partial is a trial release for fewer platforms: no krew manifest, which needs every
	// platform's archive.
	Partial bool
}

// Result is what a release made.
type Result struct {
	Pinned string   // image@sha256:… as the manifests name it
	Files  []string // the files to attach to the GitHub release, in Out
}

// Layout and Manifests are the directories of Out holding the image (an OCI layout) and
// the stamped copy of manifests/.
const (
	Layout    = "oci"
	Manifests = "manifests"
)

func (o *Options) check() error {
	if version.Canonical(o.Version) != o.Version {
		return fmt.Errorf("version %q is not vMAJOR.MINOR.PATCH (fix: e.g. v0.2.0)", o.Version)
	}
	if entries, err := os.ReadDir(o.Out); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty (fix: name a new directory)", o.Out)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("out dir: %w", err)
	}
	if o.Image == "" {
		o.Image = DefaultImage
	}
	if o.CABundle == "" {
		o.CABundle = DefaultCABundle
	}
	return os.MkdirAll(o.Out, 0o755)
}

// Release builds every artifact of a release into o.Out.
func Release(ctx context.Context, o Options) (Result, error) {
	if err := o.check(); err != nil {
		return Result{}, err
	}
	work, err := os.MkdirTemp("", "cmp-phase-release-")
	if err != nil {
		return Result{}, fmt.Errorf("work dir: %w", err)
	}
	defer os.RemoveAll(work)
	r := &run{o: o, work: work, files: map[string]bool{}}
	for _, step := range []func(context.Context) error{r.image, r.cli, r.ui, r.krew, r.manifests, r.sbom} {
		if err := step(ctx); err != nil {
			return Result{}, err
		}
	}
	return r.finish()
}

// run is a release in progress.
type run struct {
	o      Options
	work   string
	gob    GoBuild
	bins   map[Platform]Binaries
	pinned string
	ca     caPackage
	files  map[string]bool // the release's files, made so far
	sbomIn []sbomBinary
}

func (r *run) add(names ...string) {
	for _, n := range names {
		r.files[n] = true
	}
}

func (r *run) image(ctx context.Context) error {
	r.gob = GoBuild{Root: r.o.Root, Version: r.o.Version, VCS: true}
	spec := ImageSpec{Epoch: r.o.Epoch, CABundle: r.o.CABundle, PluginYAML: PluginYAML(r.o.Root),
		Labels: Labels(r.o.Version, r.o.Revision, r.o.Epoch)}
	idx, bins, err := ImageBuild{Go: r.gob, Spec: spec, Platforms: r.o.ImagePlatforms}.Build(ctx, r.work)
	if err != nil {
		return err
	}
	if err := WriteLayout(filepath.Join(r.o.Out, Layout), r.o.Version, idx); err != nil {
		return err
	}
	d, err := idx.Digest()
	if err != nil {
		return fmt.Errorf("index digest: %w", err)
	}
	r.bins, r.pinned = bins, r.o.Image+"@"+d.String()
	if r.ca, err = debianCA(r.o.CABundle); err != nil {
		return err
	}
	ref := ImageRefFile(r.o.Version)
	r.add(ref)
	return os.WriteFile(filepath.Join(r.o.Out, ref), []byte(r.pinned+"\n"), 0o644)
}

// ImageRefFile names the file holding image@digest.
func ImageRefFile(version string) string { return "cmp-phase_" + version + "_image.txt" }

func (r *run) cli(ctx context.Context) error {
	for _, p := range r.o.CLIPlatforms {
		bin := r.bins[p]["cmp-phase"]
		if bin == "" {
			bs, err := r.gob.buildAll(ctx, r.work, p, map[string]string{"cmp-phase": commands["cmp-phase"]}, nil)
			if err != nil {
				return err
			}
			bin = bs["cmp-phase"]
		}
		if _, err := writeCLIArchive(r.o.Out, r.o.Version, p, bin, r.o.Epoch); err != nil {
			return err
		}
		r.add(CLIArchive(r.o.Version, p))
	}
	return nil
}

func (r *run) ui(context.Context) error {
	if err := writeUITarball(r.o.Out, r.o.UIJS, r.o.Epoch); err != nil {
		return err
	}
	r.add(UITarball, UIConfigMap, UIChecksums)
	return nil
}

// krew stamps plugins/cmp-phase.yaml with the archives' digests (hack/stamp-krew.sh).
func (r *run) krew(ctx context.Context) error {
	if r.o.Partial {
		return nil
	}
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(r.o.Root, "hack", "stamp-krew.sh"), r.o.Version, r.o.Out)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("krew manifest: %w (fix: the error below)\n%s", err, out)
	}
	r.add(KrewManifest)
	return nil
}

// KrewManifest is the stamped krew manifest's name.
const KrewManifest = "cmp-phase.yaml"

func (r *run) finish() (Result, error) {
	names := make([]string, 0, len(r.files)+1)
	for n := range r.files {
		names = append(names, n)
	}
	sort.Strings(names)
	sums := ChecksumsFile(r.o.Version)
	if err := writeSums(filepath.Join(r.o.Out, sums), r.o.Out, names); err != nil {
		return Result{}, err
	}
	return Result{Pinned: r.pinned, Files: append(names, sums)}, nil
}
