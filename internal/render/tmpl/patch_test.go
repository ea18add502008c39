package tmpl

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
)

// TestAPatchCannotTouchWhatTheSafetyChecksRead: a templatePatch (here fed from a cluster
// annotation, as an attacker naming a cluster would) cannot move the child to another
// namespace or project, nor change or remove the kept labels and annotations the last
// check before a delete reads; what it may change, it changes.
func TestAPatchCannotTouchWhatTheSafetyChecksRead(t *testing.T) {
	tree := map[string]any{
		"metadata": map[string]any{
			"name":        "web-{{.cluster}}",
			"namespace":   Slot("ns"),
			"labels":      map[string]any{"owner": "a", "cmp-phase.io/cluster": Slot("cluster")},
			"annotations": map[string]any{"argocd.argoproj.io/sync-options": Slot("opts")},
		},
		"spec": map[string]any{"project": "default"},
	}
	patch := `metadata:
  namespace: kube-system
  labels: {owner: b, cmp-phase.io/cluster: "{{.evil}}", cmp-phase.io/rollout: other}
  annotations: {argocd.argoproj.io/sync-options: "Prune=true", extra: "x"}
spec:
  project: admin`
	tp, err := Compile(tree, patch, Options{GoTemplate: true,
		KeptLabels:      []string{"cmp-phase.io/cluster", "cmp-phase.io/rollout"},
		KeptAnnotations: []string{"argocd.argoproj.io/sync-options"}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	slots := map[string]string{"ns": "argocd", "cluster": "prod-1", "opts": "Prune=false,Delete=false"}
	if err := tp.Render(context.Background(), &b, map[string]any{"cluster": "prod-1", "evil": "dev-1"}, slots); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Metadata struct {
			Namespace   string            `json:"namespace"`
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
		Spec struct {
			Project string `json:"project"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	m := got.Metadata
	if m.Namespace != "argocd" || got.Spec.Project != "default" {
		t.Errorf("namespace %q, project %q: the patch moved the child", m.Namespace, got.Spec.Project)
	}
	if m.Labels["cmp-phase.io/cluster"] != "prod-1" || m.Labels["cmp-phase.io/rollout"] != "" || m.Annotations["argocd.argoproj.io/sync-options"] != "Prune=false,Delete=false" {
		t.Errorf("the patch changed kept metadata: %v %v", m.Labels, m.Annotations)
	}
	if _, ok := m.Labels["cmp-phase.io/rollout"]; ok {
		t.Errorf("the patch added a kept label: %v", m.Labels)
	}
	if m.Labels["owner"] != "b" || m.Annotations["extra"] != "x" {
		t.Errorf("the patch's own changes are lost: %v %v", m.Labels, m.Annotations)
	}
}
