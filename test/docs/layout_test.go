package docs

import (
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The layout table (docs/layout.md) is checked against the repository by these rules:
//
//   - A row names its paths in its first cell, each in backticks: a folder ends with "/"
//     and names that folder alone; a folder written "dir/**" names it and every folder
//     beneath it (the one way a row covers sub-folders: it says so); a path with another
//     "*" is a glob; any other path is a file.
//   - Every Go package folder (a folder holding a .go file; dot-folders, testdata and
//     node_modules left out) is named by a row. A row naming a parent folder does not
//     cover it unless written "parent/**".
//   - Every top-level folder (dot-folders left out) is named by a row, or holds a path a
//     row names.
//   - Every path a row names exists (a glob matches something).
//   - Every package under internal/ has a doc.go whose package comment begins "Package
//     <name> ", and a row that names it alone and whose second cell begins with its
//     purpose: the first sentence of that comment (go/doc's synopsis) less "Package
//     <name> ", a leading "is " and the closing period. Both sides are compared with
//     backticks dropped and runs of white space made one space.

// layoutRow is one row of docs/layout.md's table.
type layoutRow struct {
	line  int
	paths []string
	what  string
}

var quotedPath = regexp.MustCompile("`([^`]+)`")

// layoutRows reads the table of docs/layout.md.
func layoutRows(t *testing.T, root string) []layoutRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "docs", "layout.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []layoutRow
	for i, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "| `") {
			continue
		}
		cells := strings.SplitN(strings.TrimSuffix(strings.TrimPrefix(l, "| "), " |"), " | ", 2)
		if len(cells) != 2 {
			t.Fatalf("docs/layout.md:%d: not a row of two cells", i+1)
		}
		r := layoutRow{line: i + 1, what: cells[1]}
		for _, m := range quotedPath.FindAllStringSubmatch(cells[0], -1) {
			r.paths = append(r.paths, m[1])
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatal("docs/layout.md has no table rows")
	}
	return rows
}

// packageDirs is every folder of the repository holding a .go file, slash-separated and
// ending with "/".
func packageDirs(t *testing.T, root string) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		seen[filepath.ToSlash(rel)+"/"] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return slices.Sorted(func(yield func(string) bool) {
		for d := range seen {
			if !yield(d) {
				return
			}
		}
	})
}

// covers reports whether a row's path names the folder dir ("a/b/").
func covers(p, dir string) bool {
	if sub, ok := strings.CutSuffix(p, "**"); ok {
		return strings.HasPrefix(dir, sub)
	}
	return p == dir
}

// TestLayoutNamesEveryPackage: every Go package folder and every top-level folder has a
// row, and every path a row names exists.
func TestLayoutNamesEveryPackage(t *testing.T) {
	root := repoRoot(t)
	rows := layoutRows(t, root)
	var all []string
	for _, r := range rows {
		all = append(all, r.paths...)
	}
	for _, dir := range packageDirs(t, root) {
		if !slices.ContainsFunc(all, func(p string) bool { return covers(p, dir) }) {
			t.Errorf("docs/layout.md: no row names the package folder `%s` (add one; a parent's row covers it only written `parent/**`)", dir)
		}
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if !slices.ContainsFunc(all, func(p string) bool { return strings.HasPrefix(p, e.Name()+"/") }) {
			t.Errorf("docs/layout.md: no row names the top-level folder `%s/` or anything in it", e.Name())
		}
	}
	for _, r := range rows {
		for _, p := range r.paths {
			if err := layoutPathExists(root, p); err != "" {
				t.Errorf("docs/layout.md:%d: `%s` %s (drop or fix the row)", r.line, p, err)
			}
		}
	}
}

// layoutPathExists is why a row's path names nothing, or "".
func layoutPathExists(root, p string) string {
	dir, sub := strings.CutSuffix(p, "**")
	switch {
	case sub || strings.HasSuffix(p, "/"):
		if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(dir))); err != nil || !fi.IsDir() {
			return "is not a folder"
		}
	case strings.Contains(p, "*"):
		if m, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(p))); err != nil || len(m) == 0 {
			return "matches nothing"
		}
	default:
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
			return "does not exist"
		}
	}
	return ""
}

// TestLayoutRowsSayWhatThePackagesSay: the row of every package under internal/ names it
// alone and begins with the purpose its doc.go states.
func TestLayoutRowsSayWhatThePackagesSay(t *testing.T) {
	root := repoRoot(t)
	rows := layoutRows(t, root)
	for _, dir := range packageDirs(t, root) {
		if !strings.HasPrefix(dir, "internal/") {
			continue
		}
		purpose, err := packagePurpose(filepath.Join(root, filepath.FromSlash(dir)))
		if err != "" {
			t.Errorf("%sdoc.go: %s", dir, err)
			continue
		}
		i := slices.IndexFunc(rows, func(r layoutRow) bool { return slices.Contains(r.paths, dir) })
		if i < 0 {
			continue // TestLayoutNamesEveryPackage says so
		}
		r := rows[i]
		if len(r.paths) != 1 {
			t.Errorf("docs/layout.md:%d: `%s` shares its row; give it a row of its own", r.line, dir)
			continue
		}
		if !strings.HasPrefix(plain(r.what), plain(purpose)) {
			t.Errorf("docs/layout.md:%d: the row of `%s` does not begin with the purpose its doc.go states (fix the row or the doc comment's first sentence):\n  row:     %s\n  purpose: %s",
				r.line, dir, clip(plain(r.what), len(plain(purpose))+20), plain(purpose))
		}
	}
}

// packagePurpose is the purpose the package comment of dir's doc.go states: its first
// sentence less "Package <name> ", a leading "is " and the closing period.
func packagePurpose(dir string) (string, string) {
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, "doc.go"), nil, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		return "", "no doc.go (every internal package has one, its package comment saying what it is)"
	}
	first := new(doc.Package).Synopsis(f.Doc.Text())
	rest, ok := strings.CutPrefix(first, "Package "+f.Name.Name+" ")
	if !ok {
		return "", "the package comment does not begin \"Package " + f.Name.Name + " \""
	}
	rest = strings.TrimPrefix(rest, "is ")
	return strings.TrimSuffix(rest, "."), ""
}

// plain is s with backticks dropped and white space runs made one space.
func plain(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "`", "")), " ")
}

// clip is s cut to n bytes or fewer, at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
