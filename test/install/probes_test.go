package install

import (
	"fmt"
	"strings"
	"testing"
)

// TestEveryContainerOfOursIsProbed: in every install shape (the agent in the repo-server, or
// its own Deployment; with and without the UI extension), each cmp-phase container has a
// readiness and a liveness probe on a port it declares: the plugin ready on /readyz, the
// agent's own Deployment on /readyz (leader election settled), and the agent inside the
// repo-server on /healthz only, since that pod's readiness is Argo CD's repo-server's.
// test/helm keeps the Helm containers equal to these.
func TestEveryContainerOfOursIsProbed(t *testing.T) {
	install := argoInstall(t)
	want := map[string]string{"argocd-repo-server/cmp-phase": "/readyz", "argocd-repo-server/cmp-phase-agent": "/healthz", "cmp-phase-agent/cmp-phase-agent": "/readyz"}
	for _, components := range []string{"MANIFESTS/base", "MANIFESTS/base, MANIFESTS/extension", "MANIFESTS/overlays/agent-deployment",
		"MANIFESTS/overlays/agent-deployment, MANIFESTS/extension"} {
		objs := kustomizeIn(t, "namespace: argocd\nresources: [install.yaml]\ncomponents: ["+components+"]\n", map[string]string{"install.yaml": install})
		seen := 0
		for _, o := range objs {
			if o["kind"] != "Deployment" {
				continue
			}
			name := o["metadata"].(map[string]any)["name"].(string)
			pod := o["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
			for _, c := range pod["containers"].([]any) {
				c := c.(map[string]any)
				key := name + "/" + c["name"].(string)
				if !strings.HasPrefix(c["name"].(string), "cmp-phase") {
					continue
				}
				seen++
				ports := map[string]bool{}
				for _, p := range c["ports"].([]any) {
					ports[p.(map[string]any)["name"].(string)] = true
				}
				for _, kind := range []string{"readinessProbe", "livenessProbe"} {
					path, port := probe(c[kind])
					if path == "" || !ports[port] {
						t.Errorf("%s: %s %s has no HTTP probe on a port it declares (%v)", components, key, kind, c[kind])
					}
					if kind == "readinessProbe" && path != want[key] {
						t.Errorf("%s: %s is ready on %q, want %q", components, key, path, want[key])
					}
				}
			}
		}
		if seen != 2 {
			t.Errorf("%s: %d cmp-phase containers, want the plugin and the agent", components, seen)
		}
	}
}

// probe is an HTTP probe's path and port name ("" when it is none).
func probe(p any) (path, port string) {
	m, _ := p.(map[string]any)
	get, _ := m["httpGet"].(map[string]any)
	if get == nil {
		return "", ""
	}
	return fmt.Sprint(get["path"]), fmt.Sprint(get["port"])
}
