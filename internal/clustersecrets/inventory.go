package clustersecrets

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
)

// excludedAnnotations are Argo CD's and kubectl's own bookkeeping on cluster Secrets; like
// the ApplicationSet cluster generator we never expose them (the last-applied configuration
// can hold the Secret's credentials).
var excludedAnnotations = []string{
	contract.AnnotationRefresh, contract.AnnotationHydrate, contract.AnnotationInstance,
	contract.AnnotationInstallationID, corev1.LastAppliedConfigAnnotation, annotationManagedBy,
}

// annotationManagedBy marks a cluster Secret Argo CD's API made; its cluster API never
// returns it, so neither inventory mode publishes it (switching modes changes nothing).
const annotationManagedBy = "managed-by"

// MaxAnnotationValue bounds, in bytes, a cluster Secret annotation value the inventory
// publishes: templates use annotations for short values (a URL, an owner); a longer one is
// more likely a copy of something, credentials included.
const MaxAnnotationValue = 256

// withheld says why an annotation of a cluster Secret is not published, or "". A deploy
// tool's copy of the object (kubectl's last-applied-configuration, kapp's original) holds
// the Secret's data, credentials included, so keys known to carry copies are withheld, and
// so is any value shaped like one — a JSON or YAML map or list — or over MaxAnnotationValue.
func withheld(k, v string) string {
	name := k[strings.LastIndex(k, "/")+1:]
	switch {
	case slices.Contains(excludedAnnotations, k):
		return "Argo CD's or kubectl's bookkeeping"
	case strings.Contains(name, "last-applied") || strings.HasPrefix(name, "original"):
		return "a key deploy tools keep a copy of the object under"
	case len(v) > MaxAnnotationValue:
		return fmt.Sprintf("a value of %d bytes, over %d", len(v), MaxAnnotationValue)
	case structured(v):
		return "a value that is a JSON or YAML map or list"
	}
	return ""
}

// structured says whether v parses as a JSON or YAML map or list.
func structured(v string) bool {
	var x any
	if err := sigsyaml.Unmarshal([]byte(v), &x); err != nil {
		return false
	}
	switch x.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// Inventory turns Argo CD cluster Secrets into the inventory the renderer reads: name,
// server, project, labels and annotations — never the config (credentials).
func Inventory(secrets []*corev1.Secret) *inventory.Inventory {
	inv, _ := Read(secrets)
	return inv
}

// Read is Inventory with what it left out, for the log and Events: a cluster whose
// name another Secret already has (the oldest Secret keeps the name, then by namespace and
// name: a duplicate name would make every render fail), a cluster whose name is not a label
// value (every render of a rollout selecting it would fail: its child cannot carry the
// cluster label), and withheld annotations (keys only).
func Read(secrets []*corev1.Secret) (*inventory.Inventory, []Omission) {
	secrets = slices.Clone(secrets)
	slices.SortFunc(secrets, func(a, b *corev1.Secret) int {
		return cmp.Or(a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time),
			strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	var entries []entry
	for _, s := range secrets {
		if s.Labels[contract.LabelSecretType] != contract.SecretTypeCluster || len(s.Data["server"]) == 0 {
			continue
		}
		entries = append(entries, entry{
			what: fmt.Sprintf("cluster Secret %s/%s", s.Namespace, s.Name), field: "the Secret's data.name",
			name: string(s.Data["name"]), server: string(s.Data["server"]), project: string(s.Data["project"]),
			labels: s.Labels, annotations: s.Annotations,
		})
	}
	return build(entries)
}

// entry is one cluster as its source gives it, in the order the first of a name wins.
type entry struct {
	what                  string // how messages name where it comes from ("cluster Secret argocd/prod-1")
	field                 string // where its name is set, for a fix
	name, server, project string
	labels, annotations   map[string]string
}

// build is the inventory of entries, in order (the first with a name keeps it), and what
// it left out.
func build(entries []entry) (*inventory.Inventory, []Omission) {
	inv := &inventory.Inventory{Clusters: []inventory.Cluster{}}
	var left []Omission
	owner := map[string]entry{}
	for _, e := range entries {
		name := e.nameOrServer()
		if !contract.IsLabelValue(name) {
			left = append(left, Omission{Reason: "ClusterNameNotALabel", Msg: fmt.Sprintf(
				"%s names cluster %q, which is not a Kubernetes label value (63 characters at most, letters, digits, '-', '_', '.', beginning and ending with a letter or digit): cmp-phase labels each child with its cluster's name, so the cluster is left out of the inventory and gets no child (fix: set %s to a short name such as %q)",
				e.what, name, e.field, contract.LabelValueHint(name))})
			continue
		}
		if first, taken := owner[name]; taken {
			left = append(left, Omission{Reason: "ClusterNameDuplicate", Msg: fmt.Sprintf(
				"%s and %s both name cluster %q: only %s is published (fix: give %s another data.name, or delete the one that should not be there)",
				first.what, e.what, name, first.what, e.what)})
			continue
		}
		owner[name] = e
		ann, dropped := published(e.annotations)
		if len(dropped) > 0 {
			left = append(left, Omission{Msg: fmt.Sprintf("%s: annotations not published: %s (fix: keep templated annotations to short plain values)",
				e.what, strings.Join(dropped, ", "))})
		}
		inv.Clusters = append(inv.Clusters, inventory.Cluster{
			Name: name, Server: e.server, Project: e.project, Labels: maps.Clone(e.labels), Annotations: ann,
		})
	}
	slices.SortFunc(inv.Clusters, func(a, b inventory.Cluster) int { return strings.Compare(a.Name, b.Name) })
	return inv, left
}

// published are the annotations the inventory publishes (nil: none), and the withheld
// ones' keys with why (not Argo CD's and kubectl's own bookkeeping, withheld unsaid).
func published(all map[string]string) (map[string]string, []string) {
	var ann map[string]string
	var dropped []string
	for _, k := range slices.Sorted(maps.Keys(all)) {
		v := all[k]
		if why := withheld(k, v); why != "" {
			if !slices.Contains(excludedAnnotations, k) {
				dropped = append(dropped, fmt.Sprintf("%s (%s)", k, why))
			}
			continue
		}
		if ann == nil {
			ann = map[string]string{}
		}
		ann[k] = v
	}
	return ann, dropped
}

// Omission is something of the cluster Secrets the inventory leaves out.
type Omission struct {
	// Reason, when set, is the reason of a Warning Event on every parent, said at every
	// publish: a cluster left out (a second Secret with a cluster's name, a name that is not
	// a label value). Without it the omission is logged when the inventory changes.
	Reason string
	Msg    string // what was left out, and the fix
}
