package content

import (
	"errors"
	"io/fs"
	"path"
	"strings"
)

// globber is one glob pattern being walked.
type globber struct {
	pat   string
	comps []string // pat split at "/"
	// pruned: the pattern has no character class or escape, so each component of a
	// path must match the pattern's component at the same depth; a directory whose name
	// does not match is not read. Otherwise every directory under the literal prefix is.
	pruned bool
}

// glob adds what a glob pattern names, with Argo CD's comparison (AppFilesHaveChanged in
// util/app/path): a path equal to the pattern, or under it, or matching it by path.Match
// over the whole path ("*" does not cross "/"). Beyond Argo CD, every file under a
// directory the pattern matches counts too. Only the directory of the pattern's literal
// prefix is walked (a prefix that is a file matches nothing). A pattern that matches
// nothing is an error.
func (w *walker) glob(p string) error {
	matched, err := w.literal(p)
	if err != nil {
		return err
	}
	g := &globber{pat: p, comps: strings.Split(p, "/"), pruned: !strings.ContainsAny(p, `[\`)}
	k := 0
	for k < len(g.comps) && !strings.ContainsAny(g.comps[k], `*?[\`) {
		k++
	}
	prefix := "."
	if k > 0 {
		prefix = strings.Join(g.comps[:k], "/")
	}
	real, t, err := w.resolve(prefix)
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	} else if err == nil && t.IsDir() {
		if real != prefix {
			w.links[prefix] = real
		}
		var m bool
		m, err = w.globDir(g, prefix, real, k)
		matched = matched || m
	}
	if err == nil && !matched {
		err = errNoMatch
	}
	return err
}

// globDir walks the real directory real, seen by the pattern as logical, whose entries
// are at component i of the pattern.
func (w *walker) globDir(g *globber, logical, real string, i int) (bool, error) {
	entries, err := w.readDir(real)
	if err != nil {
		return false, err
	}
	matched := false
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		l, r := join(logical, name), join(real, name)
		if ok, _ := path.Match(g.pat, l); ok {
			matched = true
			if err := w.add(r, e.Type()); err != nil {
				return matched, err
			}
			continue
		}
		if !e.IsDir() || !g.descend(i, name) {
			continue
		}
		m, err := w.globDir(g, l, r, i+1)
		matched = matched || m
		if err != nil {
			return matched, err
		}
	}
	return matched, nil
}

// descend reports whether a directory named name, at component i, may hold a match.
func (g *globber) descend(i int, name string) bool {
	if !g.pruned {
		return true
	}
	if i+1 >= len(g.comps) {
		return false
	}
	ok, _ := path.Match(g.comps[i], name)
	return ok
}
