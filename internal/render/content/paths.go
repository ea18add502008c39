package content

import (
	"fmt"
	"path"
	"strings"
)

// Use is one repository location a child deploys from.
type Use struct {
	// Child is the child Application's name, for error messages.
	Child string
	// Pattern is repository-root-relative, slash-separated and cleaned (see Clean); it may
	// hold glob metacharacters (* ? [ \), matched with path.Match over the whole path.
	Pattern string
	// From is where the pattern came from, for error messages: "spec.source.path",
	// "spec.sources[1].path", "manifest-generate-paths", "spec.sources[0].helm.valueFiles[2]".
	From string
	// Optional: a pattern that names nothing is not an error (Helm's
	// ignoreMissingValueFiles); its absence is part of the digest all the same.
	Optional bool
}

// GeneratePaths resolves the value of Argo CD's manifest-generate-paths annotation the way
// Argo CD does, against the paths of the child's sources from this repository.
//
// The semantics are those of Argo CD v3's GetSourceRefreshPaths (util/app/path), applied to
// each source from this repository in turn (with none, there is no path): items are
// separated by ";" and trimmed of spaces; empty items are skipped; an item starting with
// "/" is relative to the repository root; any other item (including ".") is joined with
// the source's path. Items may be globs. Where Argo CD silently clamps a relative item
// that climbs above the root, GeneratePaths refuses it. The result is cleaned,
// repository-relative (the root is ".") and free of duplicates.
func GeneratePaths(annotation string, sourcePaths []string) ([]string, error) {
	if len(sourcePaths) == 0 {
		return nil, nil // no source from this repository: Argo CD compares no path of it
	}
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for item := range strings.SplitSeq(annotation, ";") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if path.IsAbs(item) {
			add(rooted(item))
			continue
		}
		for _, src := range sourcePaths {
			p, err := joinSource(src, item)
			if err != nil {
				return nil, fmt.Errorf("manifest-generate-paths item %q: %w", item, err)
			}
			add(p)
		}
	}
	return out, nil
}

// joinSource joins a relative annotation item with a source path. A source path that is
// absolute is taken from the repository root, as Argo CD's comparison does.
func joinSource(src, item string) (string, error) {
	j := path.Join(src, item)
	if path.IsAbs(j) {
		return rooted(j), nil
	}
	return Clean(j)
}

// rooted cleans an absolute path as seen from the repository root: it cannot climb above
// the root, like Argo CD's EnforceToCurrentRoot on "/"-prefixed paths.
func rooted(p string) string {
	c := path.Clean("/" + p)[1:]
	if c == "" {
		return "."
	}
	return c
}

// RefValueFile resolves a "$<ref>/<path>" helm value file to a repo-relative pattern; ok is
// false when vf does not start with "$"+ref+"/". As in Argo CD's getResolvedRefValueFile,
// the rest of vf is taken from the repository root ("$values/" is the whole repository).
// The pattern is cleaned but may climb above the root ("../x"): Digest refuses it and
// names the use, as Argo CD refuses such a value file.
func RefValueFile(vf, ref string) (pattern string, ok bool) {
	prefix := "$" + ref + "/"
	if ref == "" || !strings.HasPrefix(vf, prefix) {
		return "", false
	}
	return path.Clean(strings.TrimLeft(vf[len(prefix):], "/")), true
}

// Clean makes a path repo-relative and refuses one that escapes the repository: ".." or
// under it after cleaning, or an absolute path. The empty path is "." (the repo root).
func Clean(p string) (string, error) {
	if p == "" {
		return ".", nil
	}
	if path.IsAbs(p) {
		return "", fmt.Errorf("path %q is absolute: %w", p, errEscapes)
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("path %q: %w", p, errEscapes)
	}
	return c, nil
}

// isGlob reports whether p is a pattern: it holds a metacharacter of path.Match and is
// well formed. A malformed pattern is a literal path, as Argo CD's comparison (which
// ignores path.Match's error) treats it.
func isGlob(p string) bool {
	if !strings.ContainsAny(p, `*?[\`) {
		return false
	}
	_, err := path.Match(p, "")
	return err == nil
}
