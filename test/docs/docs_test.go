package docs

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"

	_ "github.com/cmp-phase/cmp-phase/internal/hooks/all" // every hook kind, as the binaries register them
)

// pending are nav entries whose pages other work writes (the command reference is generated
// from the CLI; the UI page comes with the UI extension): a nav entry may name them before
// they exist, and the generated pages need no nav entry each. A link to one is checked as
// any other: it breaks while the page does not exist.
var pending = []string{"reference/cli/", "ui.md"}

// repoRoot is the repository's root: the directory of go.mod above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = up
	}
}

// pages reads README.md and every Markdown file under docs/.
func pages(t *testing.T, root string) map[string]*page {
	t.Helper()
	ps := map[string]*page{"README.md": readPage(t, root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		ps[rel] = readPage(t, root, rel)
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return ps
}

// TestLinks fails on a relative link, in README.md or a page under docs/, to a file that does
// not exist, or to an #anchor that no heading of its target makes (on GitHub and on the mkdocs
// site alike), and on a link from docs/ out of it (the site has only docs/).
func TestLinks(t *testing.T) {
	root := repoRoot(t)
	ps := pages(t, root)
	checked := 0
	for _, name := range slices.Sorted(maps.Keys(ps)) {
		p := ps[name]
		for _, l := range p.links {
			if schemeRe.MatchString(l.target) || strings.HasPrefix(l.target, "//") {
				continue // http(s), mailto: not this test's business
			}
			checked++
			file, frag, _ := strings.Cut(l.target, "#")
			target := p
			if file != "" {
				rel := path.Clean(path.Join(path.Dir(name), file))
				if rel == ".." || strings.HasPrefix(rel, "../") {
					t.Errorf("%s:%d: %s leaves the repository", name, l.line, l.target)
					continue
				}
				if strings.HasPrefix(name, "docs/") && !strings.HasPrefix(rel, "docs/") {
					t.Errorf("%s:%d: %s leaves docs/, which the mkdocs site cannot follow (fix: name the file as code, e.g. `%s`)", name, l.line, l.target, rel)
					continue
				}
				st, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
				if err != nil {
					t.Errorf("%s:%d: broken link %s: %s does not exist", name, l.line, l.target, rel)
					continue
				}
				if frag == "" {
					continue
				}
				if st.IsDir() || !strings.HasSuffix(rel, ".md") {
					t.Errorf("%s:%d: %s: an #anchor into %s, which is not a Markdown page", name, l.line, l.target, rel)
					continue
				}
				target = ps[rel]
				if target == nil {
					target = readPage(t, root, rel)
				}
			}
			if frag == "" {
				continue
			}
			mk, ok := target.anchors[frag]
			switch {
			case !ok:
				t.Errorf("%s:%d: broken link %s: no heading of %s makes #%s", name, l.line, l.target, target.path, frag)
			case mk != frag:
				t.Errorf("%s:%d: %s: mkdocs names that heading #%s, GitHub #%s (fix: reword the heading, or link with an <a id>)", name, l.line, l.target, mk, frag)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found: the test reads nothing")
	}
}

// specKind marks a YAML block as a cmp-phase spec: a document whose top-level kind is
// ApplicationSet, what the parser itself looks for.
var specKind = regexp.MustCompile(`(?m)^kind:\s*ApplicationSet\s*(#.*)?$`)

// TestSpecExamples runs every complete spec in the docs (a fenced yaml block with a
// top-level `kind: ApplicationSet`) through what `cmp-phase validate` runs: the parser with
// the default limits (spec.ParseChecked) and, for specs without a clusters generator, the dry
// render of their children (render.Check). A block marked `<!-- invalid -->` must be refused.
func TestSpecExamples(t *testing.T) {
	root := repoRoot(t)
	ps := pages(t, root)
	specs := 0
	for _, name := range slices.Sorted(maps.Keys(ps)) {
		for _, b := range ps[name].blocks {
			yaml := b.lang == "yaml" || b.lang == "yml"
			isSpec := yaml && specKind.MatchString(b.text)
			where := name + ":" + strconv.Itoa(b.line)
			if b.invalid && !isSpec {
				t.Errorf("%s: marked <!-- invalid --> but not a yaml block with kind: ApplicationSet", where)
				continue
			}
			if !isSpec {
				continue
			}
			specs++
			err := validate(where, []byte(b.text))
			switch {
			case b.invalid && err == nil:
				t.Errorf("%s: marked <!-- invalid -->, but cmp-phase validate accepts it", where)
			case !b.invalid && err != nil:
				t.Errorf("%s: cmp-phase validate rejects this example (mark it <!-- invalid --> if it is meant to be):\n%v", where, err)
			}
		}
	}
	if specs == 0 {
		t.Fatal("no spec example found in the docs")
	}
}

// validate is cmp-phase validate's check of one file (cmd/cmp-phase/validate.go: validateOne
// and dryRender), without --inventory-file.
func validate(file string, b []byte) error {
	s, err := spec.ParseChecked(file, b, targets.NewCache(256), spec.DefaultLimits())
	if err != nil {
		var es spec.Errors
		if errors.As(err, &es) {
			return errors.New(strings.Join(es.Lines(), "\n"))
		}
		return err
	}
	for _, g := range s.Generators {
		if g.Clusters != nil {
			return nil // validate renders a clusters generator only over an inventory file
		}
	}
	return render.Check(s, &inventory.Inventory{})
}

// TestNav fails when a page under docs/ is missing from mkdocs.yml's nav, or a nav entry
// names a page that does not exist (but for the pending ones).
func TestNav(t *testing.T) {
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "mkdocs.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		DocsDir string `json:"docs_dir"`
		Nav     []any  `json:"nav"`
	}
	if err := sigsyaml.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("mkdocs.yml: %v", err)
	}
	if cfg.DocsDir != "" && cfg.DocsDir != "docs" {
		t.Fatalf("mkdocs.yml: docs_dir %q; this test reads docs/", cfg.DocsDir)
	}
	var nav []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			if !schemeRe.MatchString(v) {
				nav = append(nav, v)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(cfg.Nav)
	inNav := map[string]bool{}
	for _, n := range nav {
		inNav[n] = true
		if _, err := os.Stat(filepath.Join(root, "docs", filepath.FromSlash(n))); err == nil {
			continue
		}
		if !slices.ContainsFunc(pending, func(p string) bool { return strings.HasPrefix(n, p) }) {
			t.Errorf("mkdocs.yml: nav names docs/%s, which does not exist", n)
		}
	}
	for name := range pages(t, root) {
		rel, ok := strings.CutPrefix(name, "docs/")
		if ok && !inNav[rel] && !slices.ContainsFunc(pending, func(p string) bool { return strings.HasPrefix(rel, p) }) {
			t.Errorf("%s is not in mkdocs.yml's nav", name)
		}
	}
}

// readmeMaxLines keeps the README a front page (issue 34): what it is, the flow, the two
// commands, links. The rest belongs in docs/.
const readmeMaxLines = 150

// TestReadme keeps the README short, its first code block the two commands, and CI running
// exactly its test command.
func TestReadme(t *testing.T) {
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, over %d (fix: move the detail into a page under docs/ and link it)", n, readmeMaxLines)
	}
	p := readPage(t, root, "README.md")
	if len(p.blocks) == 0 {
		t.Fatal("README.md has no code block")
	}
	first := p.blocks[0]
	if first.lang != "sh" || !strings.HasPrefix(first.text, "hack/demo.sh ") || !strings.Contains(first.text, "\nhack/test.sh ") {
		t.Errorf("README.md:%d: the first code block must be the two commands, hack/demo.sh and hack/test.sh:\n%s", first.line, first.text)
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(ci)), "\n")
	if last := lines[len(lines)-1]; last != "hack/test.sh" {
		t.Errorf(".ci/run ends with %q, not the README's test command hack/test.sh", last)
	}
}
