package jobhook

import (
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestJobPermitted: a per-cluster Job runs only where the child's AppProject would let the
// child deploy a Job: its destinations (server or name, namespace, globs, deny patterns,
// project-scoped clusters) and batch/Job in its namespace resource lists.
func TestJobPermitted(t *testing.T) {
	dest := func(server, name, ns string) v1alpha1.ApplicationDestination {
		return v1alpha1.ApplicationDestination{Server: server, Name: name, Namespace: ns}
	}
	scoped := func(string) ([]*v1alpha1.Cluster, error) {
		return []*v1alpha1.Cluster{{Name: "prod-1", Server: prod1.Server}}, nil
	}
	none := func(string) ([]*v1alpha1.Cluster, error) { return nil, nil }
	for _, tc := range []struct {
		name     string
		spec     v1alpha1.AppProjectSpec
		clusters func(string) ([]*v1alpha1.Cluster, error)
		want     string // "" permitted
	}{
		{"any", v1alpha1.AppProjectSpec{Destinations: []v1alpha1.ApplicationDestination{dest("*", "", "*")}}, none, ""},
		{"server and namespace", v1alpha1.AppProjectSpec{Destinations: []v1alpha1.ApplicationDestination{dest(prod1.Server, "", "guestbook")}}, none, ""},
		{"by name", v1alpha1.AppProjectSpec{Destinations: []v1alpha1.ApplicationDestination{dest("", "prod-1", "guestbook")}}, none, ""},
		{"glob", v1alpha1.AppProjectSpec{Destinations: []v1alpha1.ApplicationDestination{dest("https://prod-*", "", "guest*")}}, none, ""},
		{"denied server", v1alpha1.AppProjectSpec{Destinations: []v1alpha1.ApplicationDestination{dest("https://dev-*", "", "*")}}, none,
			"AppProject apps does not permit destination server https://prod-1.example:6443 (cluster prod-1) namespace guestbook for the hook's Job (fix: add it to the project's destinations, or set job.namespace"},
		{"denied namespace", v1alpha1.AppProjectSpec{Destinations: []v1alpha1.ApplicationDestination{dest("*", "", "other")}}, none, "does not permit destination"},
		{"deny pattern", v1alpha1.AppProjectSpec{Destinations: []v1alpha1.ApplicationDestination{dest("*", "", "*"), dest("*", "", "!guestbook")}}, none, "does not permit destination"},
		{"no destinations", v1alpha1.AppProjectSpec{}, none, "does not permit destination"},
		{"project-scoped cluster", v1alpha1.AppProjectSpec{PermitOnlyProjectScopedClusters: true, Destinations: []v1alpha1.ApplicationDestination{dest("*", "", "*")}}, scoped, ""},
		{"not project-scoped", v1alpha1.AppProjectSpec{PermitOnlyProjectScopedClusters: true, Destinations: []v1alpha1.ApplicationDestination{dest("*", "", "*")}}, none, "does not permit destination"},
		{"whitelisted Job", v1alpha1.AppProjectSpec{Destinations: []v1alpha1.ApplicationDestination{dest("*", "", "*")},
			NamespaceResourceWhitelist: []metav1.GroupKind{{Group: "batch", Kind: "*"}}}, none, ""},
		{"not whitelisted", v1alpha1.AppProjectSpec{Destinations: []v1alpha1.ApplicationDestination{dest("*", "", "*")},
			NamespaceResourceWhitelist: []metav1.GroupKind{{Group: "apps", Kind: "Deployment"}}}, none,
			"AppProject apps does not permit batch/Job, which the hook creates in cluster prod-1 (fix: add {group: batch, kind: Job} to its namespaceResourceWhitelist"},
		{"blacklisted", v1alpha1.AppProjectSpec{Destinations: []v1alpha1.ApplicationDestination{dest("*", "", "*")},
			NamespaceResourceBlacklist: []metav1.GroupKind{{Group: "batch", Kind: "Job"}}}, none, "does not permit batch/Job"},
		{"empty whitelist", v1alpha1.AppProjectSpec{Destinations: []v1alpha1.ApplicationDestination{dest("*", "", "*")},
			NamespaceResourceWhitelist: []metav1.GroupKind{}}, none, "does not permit batch/Job"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proj := &v1alpha1.AppProject{ObjectMeta: metav1.ObjectMeta{Name: "apps"}, Spec: tc.spec}
			err := jobPermitted(proj, prod1, prod1.Cluster, tc.clusters)
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}
