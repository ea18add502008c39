package inputs

import (
	"fmt"

	"github.com/cmp-phase/cmp-phase/internal/content"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/render"
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
	digest, err := d.Digest(root, src.Commit, deps.Uses)
	if err != nil {
		return nil, nil, err
	}
	return src.Content(digest), deps.Unphased, nil
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
