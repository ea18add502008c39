//go:build e2e

package freshinstall

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// components are the kustomize Components docs/install.md adds to manifests/install; bases
// are what installs the sidecar and the agent (the agent in the repo-server, or as its own
// Deployment), one or the other.
var (
	components = []string{"extension", "least-privilege", "notifications", "job-namespace/agent"}
	bases      = []string{"base", "overlays/agent-deployment"}
)

// TestTheDocumentedInstallOnAFreshAPIServer: on an API server that has nothing yet, the
// commands of docs/install.md as written — the namespace, then kubectl apply -k
// manifests/install, server-side, which fetches Argo CD's install.yaml (from a fake GitHub,
// framework.StartFakeGitHub) — install Argo CD and cmp-phase; every component applies alone and with the
// others; the sidecar and the agent run from the rendered Deployment and do their work
// with the identities it gives them; and the documented uninstall leaves nothing of
// cmp-phase in any API resource.
func TestTheDocumentedInstallOnAFreshAPIServer(t *testing.T) {
	ctx := context.Background()
	e, err := framework.Start(ctx, framework.Options{Bare: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			e.DumpLogs(os.Stderr, 200)
		}
		e.Stop()
	}()
	if left := leftovers(snapshot(t, e)); len(left) > 0 {
		t.Fatalf("a fresh API server holds cmp-phase already: %v", left)
	}
	tmp := t.TempDir()
	install, err := e.InstallDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	files := releaseFiles(t)
	files["https://raw.githubusercontent.com/argoproj/argo-cd/"+e.Tools.ArgoCDVersion+"/manifests/install.yaml"] = filepath.Join(e.Tools.ArgoDir, "install.yaml")
	gh, err := e.StartFakeGitHub(files)
	if err != nil {
		t.Fatal(err)
	}
	internet = gh.Env()
	defer func() { internet = nil }()
	blocks := pageBlocks(t)
	gettingStartedCLI(t, e, blocks)
	// the getting-started page's install block as written (docs/install.md's commands),
	// manifests/install fetching Argo CD's install.yaml from the fake GitHub
	runBlock(t, e, framework.RepoRoot(), blocks["install"])
	applyEachCombination(t, e, tmp)
	applyStandalone(t, e)
	runTheInstalledContainers(t, e, install)
	uninstall(t, e)
	snap := snapshot(t, e)
	if left := leftovers(snap); len(left) > 0 {
		t.Fatalf("the documented uninstall left cmp-phase behind:\n%s", strings.Join(left, "\n"))
	}
	if _, ok := snap["Deployment argocd/argocd-repo-server"]; !ok {
		t.Fatal("the uninstall took Argo CD's repo-server with it")
	}
}

// applyEachCombination applies, as a dry run the API server validates and admits in full,
// manifests/install with every subset of the components.
func applyEachCombination(t *testing.T, e *framework.Env, tmp string) {
	t.Helper()
	for _, base := range bases {
		for mask := 0; mask < 1<<len(components); mask++ {
			var set []string
			for i, c := range components {
				if mask&(1<<i) != 0 {
					set = append(set, c)
				}
			}
			dir, err := e.InstallDirOn(tmp, base, set...)
			if err != nil {
				t.Fatal(err)
			}
			if out, err := kubectlErr(e, "apply", "-k", dir, "--server-side", "--force-conflicts", "--dry-run=server"); err != nil {
				t.Errorf("manifests/install on %s with %v: %v\n%s", base, set, err, out)
			}
		}
	}
}

// applyStandalone applies the kustomizations docs/install.md applies on their own: the
// alert rules (after the Prometheus Operator's CRDs, which the docs require; here
// stand-ins that take any spec), the approval policy and the Job namespace.
func applyStandalone(t *testing.T, e *framework.Env) {
	t.Helper()
	for _, crd := range []string{"podmonitors:PodMonitor", "prometheusrules:PrometheusRule"} {
		plural, kind, _ := strings.Cut(crd, ":")
		if err := e.ApplyYAML(context.Background(), standInCRD(plural, kind)); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []string{"observability", "admission", "job-namespace"} {
		dir := filepath.Join(framework.RepoRoot(), "manifests", k)
		if out, err := kubectlErrRetry(e, "apply", "-k", dir, "--server-side"); err != nil {
			t.Fatalf("kubectl apply -k manifests/%s: %v\n%s", k, err, out)
		}
	}
}

// kubectlErrRetry retries while the API server has not yet served a CRD just created.
func kubectlErrRetry(e *framework.Env, args ...string) (string, error) {
	var out string
	var err error
	for range 30 {
		if out, err = kubectlErr(e, args...); err == nil || !strings.Contains(out, "no matches for kind") {
			return out, err
		}
		time.Sleep(time.Second)
	}
	return out, err
}

func standInCRD(plural, kind string) string {
	return fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
	  "metadata":{"name":"%s.monitoring.coreos.com"},
	  "spec":{"group":"monitoring.coreos.com","scope":"Namespaced","names":{"plural":%q,"kind":%q},
	    "versions":[{"name":"v1","served":true,"storage":true,
	      "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`, plural, plural, kind)
}

// runTheInstalledContainers runs the sidecar and the agent of the rendered repo-server
// Deployment and waits until each does its work: the agent takes the Lease and publishes
// the inventory of the cluster Secrets, the sidecar serves the plugin socket and renders a
// plan from that inventory, both answer their liveness and readiness paths.
func runTheInstalledContainers(t *testing.T, e *framework.Env, install string) {
	t.Helper()
	ctx := context.Background()
	objs, err := framework.Build(install)
	if err != nil {
		t.Fatal(err)
	}
	pod, err := framework.PodOf(objs, "argocd-repo-server")
	if err != nil {
		t.Fatal(err)
	}
	pod.Images, pod.Shared = image(), map[string]string{"plugins": e.PluginSockDir}
	if err := e.PutClusterSecret(ctx, framework.Cluster{Name: "prod-1", Server: "https://prod-1.example.com", Labels: map[string]string{"env": "prod"}}); err != nil {
		t.Fatal(err)
	}
	var procs []*framework.Proc
	for _, c := range []string{"cmp-phase", "cmp-phase-agent"} {
		p, err := e.RunContainer(ctx, pod, c)
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
	}
	defer func() {
		for _, p := range procs {
			p.Stop(10 * time.Second)
		}
	}()
	e.WaitFor(t, 2*time.Minute, "the agent publishes the inventory", func(ctx context.Context) (bool, string) {
		inv, err := e.Kube.CoreV1().ConfigMaps("argocd").Get(ctx, contract.InventoryConfigMap, getOpts)
		if err != nil {
			return false, err.Error()
		}
		return strings.Contains(inv.Data[contract.InventoryKey], "prod-1"), "inventory without prod-1"
	})
	probes := probeURLs(t, pod.Spec)
	if len(probes) != 4 {
		t.Fatalf("the rendered containers have %d HTTP probes, want a readiness and a liveness probe each: %v", len(probes), probes)
	}
	for _, probe := range probes { // as the kubelet would ask them, from the rendered pod
		e.WaitFor(t, time.Minute, probe, func(ctx context.Context) (bool, string) { return httpOK(ctx, probe) })
	}
	for _, probe := range []string{"http://127.0.0.1:9402/readyz", "http://127.0.0.1:9403/readyz"} {
		e.WaitFor(t, time.Minute, probe, func(ctx context.Context) (bool, string) { return httpOK(ctx, probe) })
	}
	renderThroughTheSocket(t, e)
}

// probeURLs are the HTTP readiness and liveness probes of cmp-phase's containers in spec,
// each as a URL on 127.0.0.1 (the containers run on the host network here), a named port
// resolved to the container's port.
func probeURLs(t *testing.T, spec corev1.PodSpec) []string {
	t.Helper()
	var out []string
	for _, c := range spec.Containers {
		if !strings.HasPrefix(c.Name, "cmp-phase") {
			continue
		}
		for _, p := range []*corev1.Probe{c.ReadinessProbe, c.LivenessProbe} {
			if p == nil || p.HTTPGet == nil {
				continue
			}
			port := p.HTTPGet.Port.IntValue()
			for _, cp := range c.Ports {
				if cp.Name == p.HTTPGet.Port.String() {
					port = int(cp.ContainerPort)
				}
			}
			if port == 0 {
				t.Fatalf("container %s probes port %s, which it does not declare", c.Name, p.HTTPGet.Port.String())
			}
			out = append(out, fmt.Sprintf("http://127.0.0.1:%d%s", port, p.HTTPGet.Path))
		}
	}
	return out
}

func httpOK(ctx context.Context, url string) (bool, string) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, err.Error()
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK, resp.Status
}
