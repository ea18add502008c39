package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// Source is the parent's own source, from the plugin env: children that deploy from the
// same repository at a ref that moves with it are pinned to Commit.
type Source struct {
	RepoURL        string // ARGOCD_APP_SOURCE_REPO_URL
	TargetRevision string // ARGOCD_APP_SOURCE_TARGET_REVISION
	Commit         string // ARGOCD_APP_REVISION: the commit this render sees
}

// Refs are the refs of the parent's repository at which a child source moves with the
// parent: none and HEAD when the parent follows HEAD (the default branch), else the
// parent's own branch. A child at HEAD under a parent on another branch follows a branch
// the plugin does not see: it is not phased (listed, never pinned to the wrong tree).
func (s Source) Refs() []string {
	switch t := s.TargetRevision; {
	case t == "" || t == "HEAD":
		return []string{"", "HEAD"}
	case IsCommit(t):
		return []string{}
	default:
		return []string{t}
	}
}

// Content is the content part of a revision rendered at this source with digest.
func (s Source) Content(digest string) *spec.Content {
	return &spec.Content{Digest: digest, Commit: s.Commit, RepoURL: s.RepoURL, Refs: s.Refs()}
}

// IsCommit reports whether ref is a full commit SHA (SHA-1 or SHA-256, lowercase hex).
func IsCommit(ref string) bool {
	if len(ref) != 40 && len(ref) != 64 {
		return false
	}
	return strings.Trim(ref, "0123456789abcdef") == ""
}

// SameRepo reports whether two repository URLs name one repository, as Argo CD compares
// them (case, a trailing slash and a ".git" suffix do not matter).
func SameRepo(a, b string) bool {
	norm := func(u string) string {
		u = strings.ToLower(strings.TrimSpace(u))
		u = strings.TrimSuffix(u, "/")
		return strings.TrimSuffix(u, ".git")
	}
	return a != "" && norm(a) == norm(b)
}

// follows reports whether a child source from repoURL at ref follows c's repository.
func follows(c *spec.Content, repoURL, ref string) bool {
	return SameRepo(repoURL, c.RepoURL) && slices.Contains(c.Refs, ref)
}

// pin returns the child with every source that follows the revision's repository pinned
// to its commit; a child without such a source is returned as is. The child is the
// template's JSON (sorted keys, as json.Marshal writes them), so only targetRevision
// changes.
func pin(child []byte, c *spec.Content) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(child))
	d.UseNumber()
	var app map[string]any
	if err := d.Decode(&app); err != nil {
		return nil, fmt.Errorf("pin child to commit %s: %w", c.Commit, err)
	}
	s, _ := app["spec"].(map[string]any)
	changed := false
	for _, src := range sourcesOf(s) {
		repo, _ := src["repoURL"].(string)
		ref, _ := src["targetRevision"].(string)
		if follows(c, repo, ref) {
			src["targetRevision"], changed = c.Commit, true
		}
	}
	if !changed {
		return child, nil
	}
	b, err := json.Marshal(app)
	if err != nil {
		return nil, fmt.Errorf("pin child to commit %s: %w", c.Commit, err)
	}
	return b, nil
}

// pinTree pins, in a compiled template's tree, every source that follows c's repository.
// It returns true when some source's repoURL or targetRevision is templated: then each
// rendered child is pinned instead (pin).
func pinTree(tree map[string]any, c *spec.Content) (perChild bool) {
	s, _ := tree["spec"].(map[string]any)
	for _, src := range sourcesOf(s) {
		repo, okRepo := src["repoURL"].(string)
		ref, okRef := src["targetRevision"].(string)
		if _, set := src["targetRevision"]; !set {
			okRef = true
		}
		if !okRepo || !okRef || strings.Contains(repo, "{{") || strings.Contains(ref, "{{") {
			perChild = true
			continue
		}
		if follows(c, repo, ref) {
			src["targetRevision"] = c.Commit
		}
	}
	return perChild
}

// sourcesOf is an Application spec's source and sources, as decoded maps.
func sourcesOf(s map[string]any) []map[string]any {
	var out []map[string]any
	if src, ok := s["source"].(map[string]any); ok {
		out = append(out, src)
	}
	list, _ := s["sources"].([]any)
	for _, e := range list {
		if src, ok := e.(map[string]any); ok {
			out = append(out, src)
		}
	}
	return out
}
