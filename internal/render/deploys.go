package render

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render/content"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Deploys is what the children of a spec deploy from the parent's repository.
type Deploys struct {
	// Uses are the repository paths children deploy from at a ref that follows the parent:
	// the revision's content digest covers exactly these.
	Uses []content.Use
	// Unphased maps a child to the sources it deploys at a moving ref the plugin cannot see
	// (another repository, or another branch), as "repoURL@ref[, …]": not phased.
	Unphased map[string]string
}

// appDoc is the part of a rendered child that says what it deploys.
type appDoc struct {
	Metadata struct {
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		Source  *appSource  `json:"source"`
		Sources []appSource `json:"sources"`
	} `json:"spec"`
}

type appSource struct {
	RepoURL        string `json:"repoURL"`
	Path           string `json:"path"`
	TargetRevision string `json:"targetRevision"`
	Chart          string `json:"chart"`
	Ref            string `json:"ref"`
	Helm           *struct {
		ValueFiles              []string `json:"valueFiles"`
		IgnoreMissingValueFiles bool     `json:"ignoreMissingValueFiles"`
	} `json:"helm"`
}

// Deploys renders every child the spec generates from the inventory (at the spec's own
// revision) and lists what they deploy from the parent's repository in.Env.Source. Pure;
// cached while the inventory object and the source are the same.
func (r *Renderer) Deploys(in Input) (*Deploys, error) {
	_, body, id, err := in.Spec.Revision()
	if err != nil {
		return nil, err
	}
	c, err := r.compiled(id, body, in.Spec.Name)
	if err != nil {
		return nil, err
	}
	return c.deploysFor(in.ctx(), in.Inventory, in.Env.Source, childNamespace(in))
}

func (c *compiledRev) deploysFor(ctx context.Context, inv *inventory.Inventory, src Source, ns string) (*Deploys, error) {
	byName, err := c.paramsFor(ctx, inv)
	if err != nil {
		return nil, err
	}
	key := src.RepoURL + "\x00" + src.TargetRevision
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.deps != nil && c.depsInv == inv && c.depsKey == key {
		return c.deps, nil
	}
	out := &Deploys{Unphased: map[string]string{}}
	var buf bytes.Buffer
	for _, k := range slices.Sorted(maps.Keys(byName)) {
		buf.Reset()
		if err := c.tmpl.Render(ctx, &buf, c.values(byName[k], state.Position{}), map[string]string{slotNS: ns}); err != nil {
			return nil, fmt.Errorf("render %s: %w", k, err)
		}
		var app appDoc
		if err := json.Unmarshal(buf.Bytes(), &app); err != nil {
			return nil, fmt.Errorf("render %s: %w", k, err)
		}
		if err := out.add(k, &app, src); err != nil {
			return nil, err
		}
	}
	c.deps, c.depsInv, c.depsKey = out, inv, key
	return out, nil
}

// add records what one child deploys.
func (d *Deploys) add(child string, app *appDoc, src Source) error {
	srcs, fieldOf := appSources(app)
	refs := src.Refs()
	var paths []string
	ours := map[string]bool{} // ref names of sources that follow the parent
	for i, s := range srcs {
		field := fieldOf(i)
		if !SameRepo(s.RepoURL, src.RepoURL) || !slices.Contains(refs, s.TargetRevision) {
			d.unphased(child, s)
			continue
		}
		if s.Ref != "" {
			ours[s.Ref] = true
			if s.Path == "" {
				continue // a values-only source: only its $ref files count
			}
		}
		p, err := d.use(child, field+".path", s.Path)
		if err != nil {
			return err
		}
		paths = append(paths, p)
		for j, vf := range valueFiles(s) {
			// $ARGOCD_APP_* substitutions and URLs are resolved by Argo CD, not here; a
			// file under the path is covered by it.
			if !strings.Contains(vf, "$") && !strings.Contains(vf, "://") {
				if err := d.valueFile(child, fmt.Sprintf("%s.helm.valueFiles[%d]", field, j), path.Join(p, vf), s); err != nil {
					return err
				}
			}
		}
	}
	d.refValueFiles(child, srcs, fieldOf, ours)
	return d.generatePaths(child, app.Metadata.Annotations[contract.AnnotationGeneratePaths], paths)
}

// appSources is the child's sources as Argo CD's GetSources reads them: sources when there
// are any, else source; fieldOf names the field of the i-th.
func appSources(app *appDoc) (srcs []appSource, fieldOf func(i int) string) {
	srcs, fieldOf = app.Spec.Sources, func(i int) string { return fmt.Sprintf("spec.sources[%d]", i) }
	if len(srcs) == 0 && app.Spec.Source != nil {
		srcs, fieldOf = []appSource{*app.Spec.Source}, func(int) string { return "spec.source" }
	}
	return srcs, fieldOf
}

// unphased records a source of the child that does not follow the parent when what it
// deploys can change under the rollout: a moving revision, or a git tag.
func (d *Deploys) unphased(child string, s appSource) {
	if !moving(s) && !gitTag(s) {
		return
	}
	ref := s.RepoURL + "@" + cmp.Or(s.TargetRevision, "HEAD")
	if !moving(s) {
		ref += " (a git tag, which can be moved)"
	}
	if prev := d.Unphased[child]; prev != "" {
		ref = prev + ", " + ref
	}
	d.Unphased[child] = ref
}

// refValueFiles records the Helm values files any of the child's sources takes through a
// $ref to one of ours, the sources that follow the parent.
func (d *Deploys) refValueFiles(child string, srcs []appSource, fieldOf func(int) string, ours map[string]bool) {
	for i, s := range srcs {
		for j, vf := range valueFiles(s) {
			for ref := range ours {
				if pat, ok := content.RefValueFile(vf, ref); ok {
					d.Uses = append(d.Uses, content.Use{Child: child, Pattern: pat, From: fmt.Sprintf("%s.helm.valueFiles[%d]", fieldOf(i), j), Optional: ignoreMissing(s)})
				}
			}
		}
	}
}

// generatePaths adds the paths of Argo CD's manifest-generate-paths annotation.
func (d *Deploys) generatePaths(child, ann string, paths []string) error {
	if ann == "" || len(paths) == 0 {
		return nil
	}
	pats, err := content.GeneratePaths(ann, paths)
	if err != nil {
		return fmt.Errorf("child %s: annotation %s: %w (fix: name paths inside the repository)", child, contract.AnnotationGeneratePaths, err)
	}
	for _, p := range pats {
		d.Uses = append(d.Uses, content.Use{Child: child, Pattern: p, From: "annotation " + contract.AnnotationGeneratePaths})
	}
	return nil
}

// use records one path a child deploys, refusing one that leaves the repository.
func (d *Deploys) use(child, from, p string) (string, error) {
	clean, err := content.Clean(p)
	if err != nil {
		return "", fmt.Errorf("child %s: %s %q: %w (fix: name a path inside the repository)", child, from, p, err)
	}
	d.Uses = append(d.Uses, content.Use{Child: child, Pattern: clean, From: from})
	return clean, nil
}

// valueFile records a Helm values file of a source from the parent's repository; with
// ignoreMissingValueFiles a missing one is no error (Argo CD skips it too).
func (d *Deploys) valueFile(child, from, p string, s appSource) error {
	clean, err := content.Clean(p)
	if err != nil {
		return fmt.Errorf("child %s: %s %q: %w (fix: name a path inside the repository)", child, from, p, err)
	}
	d.Uses = append(d.Uses, content.Use{Child: child, Pattern: clean, From: from, Optional: ignoreMissing(s)})
	return nil
}

func ignoreMissing(s appSource) bool { return s.Helm != nil && s.Helm.IgnoreMissingValueFiles }

func valueFiles(s appSource) []string {
	if s.Helm == nil {
		return nil
	}
	return s.Helm.ValueFiles
}

var (
	versionTag = regexp.MustCompile(`^v?[0-9]+(\.[0-9]+){1,2}(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
)

// moving reports whether a source follows a ref that moves: none, HEAD, a branch (any git
// ref that is neither a commit nor a version tag), or a Helm chart version range.
// gitTag says whether s deploys a git repository at a version tag: fixed for a rollout
// until someone moves the tag, so reported, not phased.
func gitTag(s appSource) bool {
	return s.Chart == "" && versionTag.MatchString(s.TargetRevision)
}

func moving(s appSource) bool {
	ref := s.TargetRevision
	switch {
	case ref == "" || ref == "HEAD":
		return true
	case s.Chart != "":
		return !versionTag.MatchString(ref)
	default:
		return !IsCommit(ref) && !versionTag.MatchString(ref)
	}
}
