package install

import (
	"fmt"
	"testing"
)

// TestTheReleaseLabelComponent: manifests/observability with its kube-prometheus-stack
// component labels the PodMonitor and the PrometheusRule release: kube-prometheus-stack
// beside their own labels, and leaves the PodMonitor's pod selector and the dashboard's
// ConfigMap as they were; without it, nothing carries the label.
func TestTheReleaseLabelComponent(t *testing.T) {
	plain := kustomizeIn(t, "resources: [MANIFESTS/observability]\n", map[string]string{})
	labelled := kustomizeIn(t, "resources: [MANIFESTS/observability]\ncomponents: [MANIFESTS/observability/kube-prometheus-stack]\n", map[string]string{})
	for _, key := range []string{"PodMonitor/argocd/cmp-phase", "PrometheusRule/argocd/cmp-phase", "ConfigMap/<nil>/cmp-phase-dashboard"} {
		before, after := find(plain, key), find(labelled, key)
		if before == nil || after == nil {
			t.Fatalf("%s missing", key)
		}
		labels := after["metadata"].(map[string]any)["labels"].(map[string]any)
		want := key != "ConfigMap/<nil>/cmp-phase-dashboard"
		if (labels["release"] == "kube-prometheus-stack") != want || before["metadata"].(map[string]any)["labels"].(map[string]any)["release"] != nil {
			t.Errorf("%s labelled %v with the component (release wanted: %v)", key, labels, want)
		}
		if want && labels["app.kubernetes.io/part-of"] != "cmp-phase" {
			t.Errorf("%s lost its own labels: %v", key, labels)
		}
		if fmt.Sprint(before["spec"]) != fmt.Sprint(after["spec"]) {
			t.Errorf("%s's spec changed: %v", key, after["spec"])
		}
	}
}
