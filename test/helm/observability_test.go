package helm

import (
	"os"
	"reflect"
	"testing"
)

// TestTheObservabilityOptionIsTheKustomization: observability.enabled renders
// manifests/observability's PodMonitor and PrometheusRule (the same specs) and its dashboard
// ConfigMap (the same dashboard.json, labelled for Grafana's sidecar), in the release's
// namespace, the PodMonitor and the PrometheusRule carrying observability.labels — the
// release label kube-prometheus-stack's Prometheus selects them by — beside their own; the
// chart's copies of the files are identical to manifests/observability's; off, nothing.
func TestTheObservabilityOptionIsTheKustomization(t *testing.T) {
	for _, f := range []string{"podmonitor.yaml", "prometheusrule.yaml", "dashboard.json"} {
		want, err := os.ReadFile(repo("manifests", "observability", f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(repo("manifests", "helm", "cmp-phase", "files", "observability", f))
		if err != nil || string(got) != string(want) {
			t.Errorf("the chart's files/observability/%s is not manifests/observability's (fix: cp manifests/observability/%s manifests/helm/cmp-phase/files/observability/): %v", f, f, err)
		}
	}
	keys := []string{"PodMonitor/monitoring/cmp-phase", "PrometheusRule/monitoring/cmp-phase", "ConfigMap/monitoring/cmp-phase-dashboard"}
	off, err := render(t, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range off {
		if o["kind"] == "PodMonitor" || o["kind"] == "PrometheusRule" || objKey(o) == "ConfigMap/argocd/cmp-phase-dashboard" {
			t.Fatalf("observability off renders %s", objKey(o))
		}
	}
	on, err := renderIn(t, "monitoring", map[string]any{"observability": map[string]any{"enabled": true, "labels": map[string]any{"release": "kube-prometheus-stack"}}})
	if err != nil {
		t.Fatal(err)
	}
	objs := byKey(on)
	for i, f := range []string{"podmonitor.yaml", "prometheusrule.yaml"} {
		o, want := objs[keys[i]], readYAML(t, "manifests", "observability", f)
		if o == nil {
			t.Fatalf("no %s among %v", keys[i], mapKeys(objs))
		}
		if !reflect.DeepEqual(o["spec"], want["spec"]) {
			t.Errorf("%s's spec is not manifests/observability/%s's", keys[i], f)
		}
		labels := dig(o, "metadata", "labels").(map[string]any)
		if labels["release"] != "kube-prometheus-stack" || labels["app.kubernetes.io/part-of"] != "cmp-phase" {
			t.Errorf("%s is labelled %v, want release: kube-prometheus-stack beside its own", keys[i], labels)
		}
	}
	dash, _ := os.ReadFile(repo("manifests", "observability", "dashboard.json"))
	cm := objs[keys[2]]
	if cm == nil || dig(cm, "data", "cmp-phase.json") != string(dash) || dig(cm, "metadata", "labels", "grafana_dashboard") != "1" {
		t.Errorf("the dashboard ConfigMap does not carry dashboard.json for Grafana's sidecar: %v", dig(cm, "metadata"))
	}
}

func mapKeys(m map[string]map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
