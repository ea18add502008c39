package content

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFloatingReferencesAreFoundInTheFilesTheDigestCovers: a remote base at a branch, a
// Helm dependency by range and an image by tag are reported with their file; a base pinned
// to a commit, an exact chart version, a digest and local paths are not; a build file
// outside the uses is not read.
func TestFloatingReferencesAreFoundInTheFilesTheDigestCovers(t *testing.T) {
	root := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("app/kustomization.yaml", `resources:
- ../base
- deployment.yaml
- github.com/org/base?ref=main
- https://github.com/org/pinned?ref=0123456789abcdef0123456789abcdef01234567
images:
- {name: web, newTag: "1.2"}
- {name: api, digest: "sha256:abc"}
helmCharts:
- {name: redis, repo: https://charts.example.com, version: "^17.0.0"}
- {name: pg, repo: https://charts.example.com, version: 12.1.0}
`)
	write("base/kustomization.yaml", "resources: [cm.yaml]\n")
	write("chart/Chart.yaml", `apiVersion: v2
name: c
version: 1.0.0
dependencies:
- {name: common, version: "~2.4", repository: oci://registry.example.com/charts}
- {name: local, version: "*", repository: file://../local}
- {name: exact, version: 2.4.1, repository: https://charts.example.com}
`)
	write("other/kustomization.yaml", "resources: [github.com/org/unread?ref=main]\n")
	res, err := NewDigester(4, Limits{}).Scan(root, strings.Repeat("a", 40), []Use{{Child: "a", Pattern: "app"}, {Child: "a", Pattern: "base"}, {Child: "b", Pattern: "chart"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Floating {
		got = append(got, f.Pattern+" "+f.File+": "+f.What)
	}
	want := []string{
		`app app/kustomization.yaml: remote base github.com/org/base?ref=main (a branch or tag can move)`,
		`app app/kustomization.yaml: helm chart redis "^17.0.0" from https://charts.example.com (a version range or none resolves to the newest)`,
		`app app/kustomization.yaml: image web:1.2 (a tag can move; pin a digest)`,
		`chart chart/Chart.yaml: dependency common "~2.4" from oci://registry.example.com/charts (a version range resolves to the newest match)`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("floating:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.Digest == "" {
		t.Fatal("no digest")
	}
}

// TestACredentialInARemoteURLIsNotReported: a token in a remote base's or a chart
// repository's URL never reaches the not-phased list (the plan, the state, Events).
func TestACredentialInARemoteURLIsNotReported(t *testing.T) {
	refs := floatingRefs("kustomization.yaml", []byte("resources:\n- https://bot:s3cr3t@github.com/org/base?ref=main\n- git::https://tok3n@git.example.com/x.git?ref=v1\n- git@github.com:org/y.git\nhelmCharts:\n- {name: r, repo: 'https://u:p4ss@charts.example.com', version: ^1.0.0}\n"))
	all := strings.Join(refs, "\n")
	for _, secret := range []string{"s3cr3t", "tok3n", "p4ss", "bot"} {
		if strings.Contains(all, secret) {
			t.Fatalf("%q reported:\n%s", secret, all)
		}
	}
	if len(refs) != 4 || !strings.Contains(all, "https://github.com/org/base?ref=main") || !strings.Contains(all, "git@github.com:org/y.git") {
		t.Fatalf("the references are not all reported, or not readable:\n%s", all)
	}
}
