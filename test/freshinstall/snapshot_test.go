//go:build e2e

package freshinstall

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/cmp-phase/cmp-phase/test/framework"
)

// snapshot is every object of every API resource that can be listed, by kind, namespace
// and name; Events are left out (records of what happened, which expire on their own).
func snapshot(t *testing.T, e *framework.Env) map[string]*unstructured.Unstructured {
	t.Helper()
	ctx := context.Background()
	dc, err := discovery.NewDiscoveryClientForConfig(e.RestConfig)
	if err != nil {
		t.Fatal(err)
	}
	lists, err := dc.ServerPreferredResources()
	if err != nil {
		t.Fatalf("discovery: %v", err)
	}
	out := map[string]*unstructured.Unstructured{}
	for _, l := range lists {
		gv, _ := schema.ParseGroupVersion(l.GroupVersion)
		for _, r := range l.APIResources {
			if !slices.Contains(r.Verbs, "list") || r.Kind == "Event" {
				continue
			}
			items, err := e.Dynamic.Resource(gv.WithResource(r.Name)).List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatalf("list %s: %v", r.Name, err)
			}
			for i := range items.Items {
				o := &items.Items[i]
				out[fmt.Sprintf("%s %s/%s", r.Kind, o.GetNamespace(), o.GetName())] = o
			}
		}
	}
	return out
}

// ours says what in an object is cmp-phase's: its name, a label, annotation, data key or any
// value naming cmp-phase, or the key only cmp-phase sets in Argo CD's argocd-cmd-params-cm. Managed
// fields and status are not read (bookkeeping, not configuration).
func ours(o *unstructured.Unstructured) string {
	c := o.DeepCopy()
	unstructured.RemoveNestedField(c.Object, "metadata", "managedFields")
	unstructured.RemoveNestedField(c.Object, "status")
	if c.GetKind() == "ConfigMap" {
		if _, ok, _ := unstructured.NestedString(c.Object, "data", "reposerver.plugin.tar.exclusions"); ok {
			return "data key reposerver.plugin.tar.exclusions"
		}
	}
	b, _ := json.Marshal(c.Object)
	s := strings.ToLower(string(b))
	for _, mark := range []string{"cmp-phase", "cmp_phase"} {
		if i := strings.Index(s, mark); i >= 0 {
			return s[max(i-80, 0):min(i+80, len(s))]
		}
	}
	return ""
}

// leftovers lists what of cmp-phase is in a snapshot.
func leftovers(snap map[string]*unstructured.Unstructured) []string {
	var out []string
	for k, o := range snap {
		if what := ours(o); what != "" {
			out = append(out, k+": …"+what+"…")
		}
	}
	slices.Sort(out)
	return out
}
