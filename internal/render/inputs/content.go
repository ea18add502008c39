package inputs

import (
	"fmt"
	"maps"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/content"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// Content computes what the children deploy from the parent's repository checked out at
// root, for in.Content (spec.pinCommits): nil when pinning is off, the parent's repository
// is not known, or no child deploys from it. It also returns the children that follow a
// moving ref the plugin cannot see. A streamed render (argocd app diff --local, previews
// included) takes the content of the revision the state rolls out: its files are a
// person's working copy, not a commit.
func Content(r *render.Renderer, d *content.Digester, in render.Input, root string) (*spec.Content, map[string]string, error) {
	if !in.Spec.PinCommits || in.Env.Source.RepoURL == "" {
		return nil, nil, nil
	}
	deps, err := r.Deploys(in)
	if err != nil {
		return nil, nil, err
	}
	if len(deps.Uses) == 0 {
		return nil, deps.Unphased, nil
	}
	if in.Env.Source.Commit == contract.RevisionStreamed {
		c, err := stateContent(in)
		return c, deps.Unphased, err
	}
	src := in.Env.Source
	if !render.IsCommit(src.Commit) {
		return nil, nil, fmt.Errorf("%s=%q is not a commit SHA, so the children cannot be pinned to it (fix: render from git, or set pinCommits: false in the spec)", contract.EnvAppRevision, src.Commit)
	}
	res, err := d.Scan(root, src.Commit, deps.Uses)
	if err != nil {
		return nil, nil, err
	}
	return src.Content(res.Digest), withFloating(deps.Unphased, deps.Uses, res.Floating), nil
}

// withFloating adds to unphased (child → what it deploys that is not phased) the floating
// references of the files each child deploys: what the commit's digest covers, but not
// what those files point at. unphased is not changed; the result is a new map when needed.
func withFloating(unphased map[string]string, uses []content.Use, floating []content.Floating) map[string]string {
	if len(floating) == 0 {
		return unphased
	}
	out := maps.Clone(unphased)
	if out == nil {
		out = map[string]string{}
	}
	for _, u := range uses {
		p, err := content.Clean(u.Pattern)
		if err != nil {
			continue
		}
		for _, f := range floating {
			if f.Pattern != p {
				continue
			}
			item := f.File + ": " + f.What
			if cur := out[u.Child]; cur == "" {
				out[u.Child] = item
			} else if !strings.Contains(cur, item) {
				out[u.Child] = cur + ", " + item
			}
		}
	}
	return out
}

// stateContent is the content of the revision the state rolls out (or deploys).
func stateContent(in render.Input) (*spec.Content, error) {
	st := in.State
	if st == nil {
		return nil, nil
	}
	rev := st.Deployed
	if st.Rollout.Active() {
		rev = st.Rollout.Revision
	}
	body, ok := st.Revisions[rev]
	if !ok {
		return nil, nil
	}
	_, c, err := spec.SplitContent(body)
	return c, err
}
