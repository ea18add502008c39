package render_test

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

const clusterLabelSpec = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: web, namespace: argocd}
spec:
  generators:
  - clusters: {}
  - list:
      elements: [{nameNormalized: ELEMENT, server: 'https://10.9.9.9:6443'}]
  template:
    metadata: {name: 'web-{{nameNormalized}}'}
    spec:
      project: default
      source: {repoURL: https://git.example.com/web.git, path: web, targetRevision: main}
      destination: {server: '{{server}}', namespace: web}
`

// TestClusterNameMustBeALabelValue: every child is labelled cmp-phase.io/cluster with its
// cluster's name (a list element's child with its own name). A name that is not a label
// value (an EKS ARN, a GKE name over 63 characters) rendered, and the API server refused
// the child later; the render now refuses it, naming the cluster and the fix.
func TestClusterNameMustBeALabelValue(t *testing.T) {
	long := "gke_" + strings.Repeat("project-", 6) + "europe-west1_prod" // 69 characters
	for _, tc := range []struct {
		name, cluster, element, want string
	}{
		{name: "eks arn", cluster: "arn:aws:eks:eu-west-1:123456789012:cluster/prod", element: "x",
			want: `cluster "arn:aws:eks:eu-west-1:123456789012:cluster/prod": its name is not a Kubernetes label value`},
		{name: "long gke name", cluster: long, element: "x", want: `cluster "` + long + `": its name is not a Kubernetes label value`},
		{name: "long list child", cluster: "prod", element: strings.Repeat("e", 64),
			want: `child "web-` + strings.Repeat("e", 64) + `": its name is not a Kubernetes label value`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			y := strings.Replace(clusterLabelSpec, "ELEMENT", tc.element, 1)
			s, err := spec.Parse("spec.yaml", []byte(y), targets.NewCache(4))
			if err != nil {
				t.Fatal(err)
			}
			inv := &inventory.Inventory{Clusters: []inventory.Cluster{
				{Name: "in-cluster", Server: "https://kubernetes.default.svc"},
				{Name: tc.cluster, Server: "https://10.0.0.1:6443"},
			}}
			err = render.Check(s, inv)
			if err == nil {
				t.Fatal("render accepted a child whose cmp-phase.io/cluster label is not a label value")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "(fix: ") {
				t.Fatalf("error %q\nwant it to contain %q and a fix", err, tc.want)
			}
		})
	}
	// The same spec over clusters whose names are label values renders.
	s, err := spec.Parse("spec.yaml", []byte(strings.Replace(clusterLabelSpec, "ELEMENT", "x", 1)), targets.NewCache(4))
	if err != nil {
		t.Fatal(err)
	}
	ok := strings.Repeat("a", 63)
	inv := &inventory.Inventory{Clusters: []inventory.Cluster{{Name: ok, Server: "https://10.0.0.1:6443"}, {Name: "eu_west.1-prod", Server: "https://10.0.0.2:6443"}}}
	if err := render.Check(s, inv); err != nil {
		t.Fatal(err)
	}
}
