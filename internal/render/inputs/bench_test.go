package inputs_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/content"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// pinnedBenchSpec: one child per cluster, each deploying its own directory of the parent's
// repository at HEAD.
const pinnedBenchSpec = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: bench, namespace: argocd}
spec:
  generators:
  - clusters:
      selector: {matchLabels: {env: prod}}
  template:
    metadata:
      name: 'payments-{{name}}'
      labels: {env: '{{metadata.labels.env}}', team: payments}
    spec:
      project: payments
      source:
        repoURL: https://git.example.com/fleet.git
        targetRevision: HEAD
        path: 'apps/{{name}}'
      destination: {server: '{{server}}', namespace: payments}
      syncPolicy:
        automated: {prune: true, selfHeal: true}
`

// benchRepo writes a repository of clusters × 20 files of 2.5 KB (1,000 clusters: 20,000
// files, 50 MB) and returns its root.
func benchRepo(b *testing.B, clusters int) string {
	b.Helper()
	root := b.TempDir()
	body := bytes.Repeat([]byte("x"), 2500)
	for i := range clusters {
		dir := filepath.Join(root, "apps", fmt.Sprintf("prod-%05d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range 20 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.yaml", j)), body, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return root
}

func benchInventory(n int) *inventory.Inventory {
	inv := &inventory.Inventory{}
	for i := range n {
		inv.Clusters = append(inv.Clusters, inventory.Cluster{Name: fmt.Sprintf("prod-%05d", i), Server: fmt.Sprintf("https://10.0.%d.%d:6443", i/256, i%256),
			Labels: map[string]string{contract.LabelSecretType: contract.SecretTypeCluster, "env": "prod"}})
	}
	return inv
}

// BenchmarkRenderPinned is the whole render of a plugin call with pinned commits, at 1,000
// clusters over a 20,000-file, 50 MB repository: what the children deploy, the content
// digest, the render with every child pinned. warm: the sidecar's steady state on one
// commit (digest cached); new-commit: a commit the digest has not seen (every file read and
// hashed); cold: new renderer and digester per render.
func BenchmarkRenderPinned(b *testing.B) {
	const n = 1000
	root := benchRepo(b, n)
	sp, err := spec.Parse("bench.yaml", []byte(pinnedBenchSpec), targets.NewCache(8))
	if err != nil {
		b.Fatal(err)
	}
	inv := benchInventory(n)
	for _, mode := range []string{"warm", "new-commit", "cold"} {
		b.Run(mode, func(b *testing.B) {
			r, d := render.New(8), content.NewDigester(64, content.Limits{})
			for i := 0; b.Loop(); i++ {
				commit := strings.Repeat("a", 40)
				if mode != "warm" {
					commit = fmt.Sprintf("%040x", i+1)
				}
				if mode == "cold" {
					r, d = render.New(8), content.NewDigester(64, content.Limits{})
				}
				in := render.Input{Spec: sp, Inventory: inv, Env: render.Env{StateNamespace: contract.DefaultNamespace,
					Source: render.Source{RepoURL: "https://git.example.com/fleet", TargetRevision: "HEAD", Commit: commit}}}
				c, _, err := inputs.Content(r, d, in, root)
				if err != nil || c == nil {
					b.Fatal(err)
				}
				in.Content = c
				body, id, _ := spec.WithContent(mustRevision(b, sp), *c)
				in.State = deployedAt(id, body)
				in.State.Children = childNames(n)
				if _, err := r.Render(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func mustRevision(b *testing.B, sp *spec.Spec) []byte {
	_, body, _, err := sp.Revision()
	if err != nil {
		b.Fatal(err)
	}
	return body
}

func childNames(n int) []string {
	out := make([]string, n)
	for i := range n {
		out[i] = fmt.Sprintf("payments-prod-%05d", i)
	}
	return out
}
