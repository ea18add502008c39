package content

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"syscall"
)

// Symbolic links are followed, inside the repository only: a link is part of the digest
// by its path and the real path it resolves to, and what it points to is walked as any
// named file or directory (each real directory once, so a link to an ancestor does not
// loop). A link that is absolute or climbs above the root is an error, and so is a chain
// of links longer than maxHops; a dangling link is recorded by its target text.

// maxHops bounds the symbolic links followed to resolve one path, as Linux's MAXSYMLINKS.
const maxHops = 40

// follow adds what the link at rel points to, and the link itself. A dangling link is
// recorded by its target text.
func (w *walker) follow(link string) error {
	real, t, err := w.resolve(link)
	if errors.Is(err, fs.ErrNotExist) {
		target, err := w.root.Readlink(link)
		w.links[link] = "!" + target
		return err
	}
	if err != nil {
		return err
	}
	w.links[link] = real
	return w.add(real, t)
}

// resolve returns the real path of rel and its type, following every link in it inside
// the repository: a link that is absolute or climbs above the root is refused, and so is a
// loop.
func (w *walker) resolve(rel string) (string, fs.FileMode, error) {
	todo := strings.Split(rel, "/")
	cur, t, hops, last := ".", fs.ModeDir, 0, rel
	for len(todo) > 0 {
		p := todo[0]
		todo = todo[1:]
		switch {
		case p == "" || p == ".":
			continue
		case p == ".." && cur == ".":
			return "", 0, &badLink{link: last}
		case p == "..":
			cur, t = path.Dir(cur), fs.ModeDir
			continue
		}
		next := join(cur, p)
		fi, err := w.root.Lstat(next)
		if errors.Is(err, syscall.ENOTDIR) {
			err = fmt.Errorf("%s: %w", next, fs.ErrNotExist)
		}
		if err != nil {
			return "", 0, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur, t = next, fi.Mode().Type()
			continue
		}
		if hops++; hops > maxHops {
			return "", 0, &badLink{link: next, loop: true}
		}
		target, err := w.root.Readlink(next)
		if err != nil {
			return "", 0, err
		}
		if last = next; path.IsAbs(target) {
			return "", 0, &badLink{link: next}
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	return cur, t, nil
}
