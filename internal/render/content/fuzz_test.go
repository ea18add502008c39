package content

import (
	"path"
	"strings"
	"testing"
)

// FuzzGeneratePaths checks that GeneratePaths never panics and returns clean
// repository-relative paths, or an error.
func FuzzGeneratePaths(f *testing.F) {
	for _, s := range [][2]string{
		{".", "apps/a"}, {"/x;y", "a"}, {"../../b", "a"}, {"*.yaml; /e/*", ""},
		{" ; ;", "a"}, {"/../..", "/a"}, {"[", "a"}, {"a\\*b", "x/y/../z"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, annotation, source string) {
		got, err := GeneratePaths(annotation, []string{source, "fixed/dir"})
		if err != nil {
			return
		}
		for _, p := range got {
			if p == "" || path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") {
				t.Fatalf("GeneratePaths(%q, %q) gave %q: not a clean repo-relative path", annotation, source, p)
			}
			if c, err := Clean(p); err != nil || c != p {
				t.Fatalf("Clean(%q) = %q, %v", p, c, err)
			}
		}
	})
}
