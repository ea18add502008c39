package content

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// matched returns the files the walk of pattern p claims, sorted, or the walk's error.
func matched(t *testing.T, root, p string) ([]string, error) {
	t.Helper()
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hs := startHasher(r, DefaultMaxBytes)
	w := newWalker(r, DefaultMaxFiles, hs)
	err = w.walk(0, p)
	if _, herr := hs.wait(); err == nil {
		err = herr
	}
	return sortedKeys(w.files), err
}

func TestGlobMatches(t *testing.T) {
	root := tree(t, map[string]string{
		"envs/prod.yaml":         "",
		"envs/dev.yaml":          "",
		"envs/eu/values.yaml":    "",
		"envs/eu/deep/x.yaml":    "",
		"envs/us/values.yaml":    "",
		"envs/us/values.json":    "",
		"envs/a*b/lit.yaml":      "",
		"envs/ab/not.yaml":       "",
		"README.md":              "",
		"docs/README.md":         "",
		"apps/x/values.yaml":     "",
		"apps/y/sub/values.yaml": "",
		".git/config.md":         "",
	})
	link(t, root, "envs/linked.yaml", "prod.yaml")
	for _, tc := range []struct{ pattern, want string }{
		{"envs/*.yaml", "envs/dev.yaml envs/prod.yaml"}, // the link resolves to prod.yaml
		{"envs/*/values.yaml", "envs/eu/values.yaml envs/us/values.yaml"},
		{"envs/e?", "envs/eu/deep/x.yaml envs/eu/values.yaml"}, // a matched directory counts whole
		{"envs/[pd]*.yaml", "envs/dev.yaml envs/prod.yaml"},
		{"envs[/]prod.yaml", "envs/prod.yaml"}, // a class may match "/", as path.Match has it
		{"*.md", "README.md"},                  // ".git" is never walked
		{"*/*/values.yaml", "apps/x/values.yaml envs/eu/values.yaml envs/us/values.yaml"},
		{"envs/a*b", "envs/a*b/lit.yaml envs/ab/not.yaml"}, // literally, as Argo CD, and as a glob
		{"apps/*", "apps/x/values.yaml apps/y/sub/values.yaml"},
	} {
		got, err := matched(t, root, tc.pattern)
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("%s: matched %q, %v; want %s", tc.pattern, got, err, tc.want)
		}
	}
	if got, err := matched(t, root, "envs/*.txt"); err != errNoMatch {
		t.Errorf("no match: %q, %v", got, err)
	}
	if got, err := matched(t, root, "README.md/*"); err != errNoMatch {
		t.Errorf("a file as the prefix: %q, %v", got, err)
	}
}

func TestLinksInWalk(t *testing.T) {
	root := tree(t, map[string]string{"a/x.yaml": "", "b/y.yaml": "", "c/z.yaml": ""})
	link(t, root, "a/toB", "../b")
	link(t, root, "a/up", "..")
	link(t, root, "c/dir", "../a/toB")
	got, err := matched(t, root, "a")
	if want := []string{"a/x.yaml", "b/y.yaml", "c/z.yaml"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("through links: %q, %v; want %q", got, err, want)
	}
	got, err = matched(t, root, "c/dir/y.yaml")
	if want := []string{"b/y.yaml"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("a pattern through two links: %q, %v; want %q", got, err, want)
	}
}
