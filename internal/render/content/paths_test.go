package content

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestGeneratePaths(t *testing.T) {
	for _, tc := range []struct {
		name, annotation string
		sources          []string
		want             []string
		err              string
	}{
		{name: "dot is the source path", annotation: ".", sources: []string{"apps/a"}, want: []string{"apps/a"}},
		{name: "absolute is from the root", annotation: "/shared/base", sources: []string{"apps/a"}, want: []string{"shared/base"}},
		{name: "no source from this repository", annotation: "/shared;.", sources: nil},
		{name: "several items", annotation: "a;b", sources: []string{"apps/x"}, want: []string{"apps/x/a", "apps/x/b"}},
		{name: "sibling joined and cleaned", annotation: "../sibling", sources: []string{"apps/a"}, want: []string{"apps/sibling"}},
		{name: "empty items skipped", annotation: ";;.;", sources: []string{"apps/a"}, want: []string{"apps/a"}},
		{name: "spaces trimmed", annotation: " . ; /base ", sources: []string{"apps/a"}, want: []string{"apps/a", "base"}},
		{name: "glob relative", annotation: "*.yaml", sources: []string{"apps/a"}, want: []string{"apps/a/*.yaml"}},
		{name: "glob absolute", annotation: "/envs/*/values.yaml", sources: []string{"apps/a"}, want: []string{"envs/*/values.yaml"}},
		{name: "several sources", annotation: "x;/y", sources: []string{"a", "b"}, want: []string{"a/x", "b/x", "y"}},
		{name: "root", annotation: "/", sources: []string{"a"}, want: []string{"."}},
		{name: "root source", annotation: ".", sources: []string{""}, want: []string{"."}},
		{name: "absolute clamped at the root as Argo CD", annotation: "/../x", sources: []string{"a"}, want: []string{"x"}},
		{name: "double slash", annotation: "//a", sources: []string{"a"}, want: []string{"a"}},
		{name: "absolute source path", annotation: "x", sources: []string{"/apps/a"}, want: []string{"apps/a/x"}},
		{name: "duplicates dropped", annotation: ".;./;/apps/a", sources: []string{"apps/a"}, want: []string{"apps/a"}},
		{name: "empty annotation", annotation: "", sources: []string{"a"}},
		{name: "escape refused", annotation: "../../x", sources: []string{"apps"}, err: `"../../x": path "../x": it leaves the repository`},
		{name: "escaping source refused", annotation: ".", sources: []string{"../out"}, err: "leaves the repository"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := GeneratePaths(tc.annotation, tc.sources)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("GeneratePaths(%q, %q) = %q, %v; want %q", tc.annotation, tc.sources, got, err, tc.want)
			}
		})
	}
}

func TestRefValueFile(t *testing.T) {
	for _, tc := range []struct {
		vf, ref, want string
		ok            bool
	}{
		{"$values/envs/prod.yaml", "values", "envs/prod.yaml", true},
		{"$values/./a/../b.yaml", "values", "b.yaml", true},
		{"$values//x.yaml", "values", "x.yaml", true},
		{"$values/", "values", ".", true},
		{"$values/envs/*.yaml", "values", "envs/*.yaml", true},
		{"$values/../x", "values", "../x", true}, // refused by Digest
		{"$other/x.yaml", "values", "", false},
		{"$valuesx/a.yaml", "values", "", false},
		{"values/a.yaml", "values", "", false},
		{"$values", "values", "", false},
		{"$/a.yaml", "", "", false},
	} {
		got, ok := RefValueFile(tc.vf, tc.ref)
		if got != tc.want || ok != tc.ok {
			t.Errorf("RefValueFile(%q, %q) = %q, %v; want %q, %v", tc.vf, tc.ref, got, ok, tc.want, tc.ok)
		}
	}
}

func TestClean(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		escapes  bool
	}{
		{"", ".", false},
		{".", ".", false},
		{"a/./b/", "a/b", false},
		{"a/../b", "b", false},
		{"a//b", "a/b", false},
		{"..a/b", "..a/b", false},
		{"..", "", true},
		{"../a", "", true},
		{"a/../../b", "", true},
		{"/a", "", true},
		{"/", "", true},
	} {
		got, err := Clean(tc.in)
		if tc.escapes {
			if !errors.Is(err, errEscapes) {
				t.Errorf("Clean(%q) = %q, %v; want it refused", tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Clean(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
