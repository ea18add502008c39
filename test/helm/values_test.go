package helm

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"helm.sh/helm/v4/pkg/cli/values"
	"helm.sh/helm/v4/pkg/getter"
)

// optionFiles are the argo-cd chart's option files: every values file in manifests/helm but
// values.yaml, which comes first.
func optionFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(repo("manifests", "helm", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files = slices.DeleteFunc(files, func(f string) bool { return filepath.Base(f) == "values.yaml" })
	if len(files) < 3 {
		t.Fatalf("option files %v: want the extension's, least-privilege's and the notifications'", files)
	}
	return files
}

// orders are every subset of files in every order (the empty one included).
func orders(files []string) [][]string {
	out := [][]string{nil}
	for i, f := range files {
		rest := slices.Delete(slices.Clone(files), i, i+1)
		for _, tail := range orders(rest) {
			out = append(out, append([]string{f}, tail...))
		}
	}
	return out
}

// merge merges values files as `helm -f a -f b` does, with Helm's own code.
func merge(t *testing.T, files []string) map[string]any {
	t.Helper()
	opts := values.Options{ValueFiles: files}
	m, err := opts.MergeValues(getter.Providers{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// leaves are a values tree's paths to what is not a map (a scalar or a list), with it.
func leaves(v any, path []string, out map[string]leaf) {
	if m, ok := v.(map[string]any); ok && len(m) > 0 {
		for k, sub := range m {
			leaves(sub, append(slices.Clone(path), k), out)
		}
		return
	}
	out[fmt.Sprintf("%q", path)] = leaf{path, v}
}

type leaf struct {
	path  []string
	value any
}

func (l leaf) isList() bool { _, ok := l.value.([]any); return ok }

// TestTheOptionFilesCompose: values.yaml then every subset of the option files in every
// order, merged with Helm's own merge, gives the union: every leaf each file sets is in the
// merge with that file's value. Helm replaces a list whole, so no list is set by two files.
func TestTheOptionFilesCompose(t *testing.T) {
	base := repo("manifests", "helm", "values.yaml")
	files := append([]string{base}, optionFiles(t)...)
	sets := map[string]map[string]leaf{}
	for _, f := range files {
		sets[f] = map[string]leaf{}
		leaves(merge(t, []string{f}), nil, sets[f])
	}
	for i, a := range files {
		for _, b := range files[i+1:] {
			for k, l := range sets[a] {
				if _, both := sets[b][k]; both && (l.isList() || sets[b][k].isList()) {
					t.Errorf("the list %v is set by %s and %s: the last one given replaces the other whole", l.path, filepath.Base(a), filepath.Base(b))
				}
			}
		}
	}
	for _, order := range orders(files[1:]) {
		given := append([]string{base}, order...)
		merged := merge(t, given)
		for _, f := range given {
			for _, l := range sets[f] {
				if got := dig(merged, l.path...); !reflect.DeepEqual(got, l.value) {
					t.Errorf("-f %v: %v is %v, want %s's %v", names(given), l.path, got, filepath.Base(f), l.value)
				}
			}
		}
	}
}

func names(files []string) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = filepath.Base(f)
	}
	return out
}
