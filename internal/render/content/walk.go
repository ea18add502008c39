package content

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// walker collects what a set of patterns names: regular files and symbolic links, by
// repository-relative path, and gives each file to the hasher as it finds it. It reads
// only through an os.Root.
type walker struct {
	root    *os.Root
	max     int               // Limits.MaxFiles: directory entries read, at most
	read    int               // directory entries read so far
	visited map[string]bool   // directories walked, by real path (no link in it)
	files   map[string]int    // regular files by real path → the pattern that named them first
	links   map[string]string // a path through a link → its real path, or "!"+target if dangling
	pattern int               // the pattern being walked
	hs      *hasher           // hashes the files found
	jobs    []*job            // what hs was given
	build   map[string]int    // build files (kustomization, Chart.yaml) by real path → pattern
}

func newWalker(r *os.Root, maxFiles int, hs *hasher) *walker {
	return &walker{root: r, max: maxFiles, visited: map[string]bool{},
		files: map[string]int{}, links: map[string]string{}, hs: hs}
}

// walk adds what pattern p (the i-th) names.
func (w *walker) walk(i int, p string) error {
	w.pattern = i
	if slices.Contains(strings.Split(p, "/"), ".git") {
		return errGitDir
	}
	if isGlob(p) {
		return w.glob(p)
	}
	ok, err := w.literal(p)
	if err == nil && !ok {
		err = errMissing
	}
	return err
}

// literal adds the file or directory at p; ok is false when there is none.
func (w *walker) literal(p string) (ok bool, err error) {
	real, t, err := w.resolve(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if real != p {
		w.links[p] = real
	}
	return true, w.add(real, t)
}

// add adds the entry at real path rel: a file, a directory's files, or what a link names.
// Devices, pipes and sockets are skipped: git stores none.
func (w *walker) add(rel string, t fs.FileMode) error {
	switch {
	case t.IsDir():
		return w.walkDir(rel)
	case t.IsRegular():
		if w.claim(rel) {
			w.hash(nil, path.Dir(rel), []string{path.Base(rel)})
		}
	case t&fs.ModeSymlink != 0:
		return w.follow(rel)
	}
	return nil
}

// claim reports whether the regular file at real path rel is new, and records it.
func (w *walker) claim(rel string) bool {
	if _, ok := w.files[rel]; ok {
		return false
	}
	w.files[rel] = w.pattern
	return true
}

// hash gives the named files of a directory (open as dir, or nil) to the hasher, and notes
// the build files among them for the floating-reference scan.
func (w *walker) hash(dir *os.File, path string, names []string) {
	for _, n := range names {
		if isBuildFile(n) && len(w.build) < maxBuildFiles {
			if w.build == nil {
				w.build = map[string]int{}
			}
			w.build[join(path, n)] = w.pattern
		}
	}
	w.jobs = append(w.jobs, w.hs.add(dir, path, names)...)
}

// walkDir adds every file under the real directory dir, once per call of Digest. Its
// files go to the hasher with the directory still open, then its subdirectories and
// links are walked.
func (w *walker) walkDir(dir string) error {
	if w.visited[dir] {
		return nil
	}
	w.visited[dir] = true
	f, entries, err := w.openDir(dir)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && e.Name() != ".git" && w.claim(join(dir, e.Name())) {
			names = append(names, e.Name())
		}
	}
	if len(names) > 0 {
		w.hash(f, dir, names)
	} else {
		f.Close()
	}
	for _, e := range entries {
		if e.Name() == ".git" || e.Type().IsRegular() {
			continue
		}
		if err := w.add(join(dir, e.Name()), e.Type()); err != nil {
			return err
		}
	}
	return nil
}

// readDir lists a real directory, counting its entries against the limit.
func (w *walker) readDir(dir string) ([]fs.DirEntry, error) {
	f, entries, err := w.openDir(dir)
	if err == nil {
		f.Close()
	}
	return entries, err
}

// openDir opens and lists a real directory, counting its entries against the limit.
// On success the caller closes the directory.
func (w *walker) openDir(dir string) (*os.File, []fs.DirEntry, error) {
	f, err := w.root.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	entries, err := listDir(f)
	if w.read += len(entries); err == nil && w.read > w.max {
		err = &tooLarge{what: "files and directories", limit: int64(w.max), field: "MaxFiles"}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, entries, nil
}

// join joins a repository-relative directory and a name.
func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}
