package hookrun

import (
	"errors"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
)

// TestClusterVarsComeFromTheClusterTheEngineNames: a per-cluster run gets its cluster's
// fields from the inventory — the cluster the engine named (a pre-hook's child does not
// exist yet), else the one the live child's label names; a per-phase run only the phase's.
func TestClusterVarsComeFromTheClusterTheEngineNames(t *testing.T) {
	inv := &inventory.Inventory{Clusters: []inventory.Cluster{
		{Name: "prod-us-west", Server: "https://10.0.0.1", Labels: map[string]string{"tier": "production"}},
		{Name: "dev-1", Server: "https://10.0.0.2"},
	}}
	live := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: "web-dev-1", Labels: map[string]string{contract.LabelCluster: "dev-1"}}}
	cases := map[string]struct {
		act                 rollout.Action
		live                *v1alpha1.Application
		name, server, label string
	}{
		"a pre-hook before its child exists": {rollout.Action{Cluster: "web-prod-us-west", ClusterName: "prod-us-west"}, nil, "prod-us-west", "https://10.0.0.1", "production"},
		"a live child, no name given":        {rollout.Action{Cluster: "web-dev-1"}, live, "dev-1", "https://10.0.0.2", ""},
		"a per-phase run":                    {rollout.Action{}, nil, "", "", ""},
		"a cluster gone from the inventory":  {rollout.Action{Cluster: "web-gone", ClusterName: "gone"}, nil, "", "", ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			vars := Vars("web", "argocd", "prod", c.act, c.live, inv)
			if vars["name"] != c.name || vars["server"] != c.server || vars["metadata.labels.tier"] != c.label || vars[".phase.name"] != "prod" {
				t.Fatalf("%v", vars)
			}
		})
	}
}

// TestDestTarget: the run's target is the inventory's cluster (the run's template
// variables) with the child's project and namespace; a cluster gone from the inventory, or
// a child that could not be read, is an error.
func TestDestTarget(t *testing.T) {
	d := &Dest{Project: "apps", Namespace: "guestbook"}
	got, err := d.Target("web-prod-1", map[string]string{"name": "prod-1", "server": "https://prod-1"})
	if err != nil || *got != (hooks.Target{Cluster: "prod-1", Server: "https://prod-1", Project: "apps", Namespace: "guestbook"}) {
		t.Fatalf("got %+v %v", got, err)
	}
	if _, err := d.Target("web-gone", map[string]string{}); err == nil || !strings.Contains(err.Error(), "the cluster of child web-gone is not in the inventory") {
		t.Fatalf("gone: %v", err)
	}
	errTest := errors.New("unread")
	if _, err := (&Dest{Err: errTest}).Target("web-prod-1", map[string]string{"name": "prod-1", "server": "s"}); err != errTest {
		t.Fatalf("unread: %v", err)
	}
}
