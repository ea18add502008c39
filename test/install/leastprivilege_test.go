package install

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// argoInstall is Argo CD's own install.yaml, from the Go module cache.
func argoInstall(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/argoproj/argo-cd/v3").Output()
	if err != nil {
		t.Fatalf("locate argo-cd's module: %v", err)
	}
	install, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "manifests", "install.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(install)
}

// TestTheLeastPrivilegeComponentTakesListAndWatchOnSecrets: over Argo CD's install with
// manifests/base (with the UI extension and the job namespace, in any order),
// manifests/least-privilege takes exactly list and watch on Secrets out of the agent's
// Role, gives the agent --inventory-from argocd and argocd-server's token through its
// environment (its args and command stay as the others set them), and adds the agent's
// Argo CD account and policy beside the installation's.
func TestTheLeastPrivilegeComponentTakesListAndWatchOnSecrets(t *testing.T) {
	install := map[string]string{"install.yaml": argoInstall(t)}
	base := kustomizeIn(t, "namespace: argocd\nresources: [install.yaml]\ncomponents: [MANIFESTS/base]\n", install)
	for _, components := range []string{"MANIFESTS/base, MANIFESTS/least-privilege",
		"MANIFESTS/base, MANIFESTS/extension, MANIFESTS/least-privilege, MANIFESTS/job-namespace/agent",
		"MANIFESTS/base, MANIFESTS/job-namespace/agent, MANIFESTS/least-privilege, MANIFESTS/extension"} {
		objs := kustomizeIn(t, "namespace: argocd\nresources: [install.yaml]\ncomponents: ["+components+"]\n", install)
		agent := agentContainer(t, objs)
		env := fmt.Sprint(agent["env"])
		cmdline := fmt.Sprint(agent["command"], agent["args"])
		if !strings.Contains(env, "name:CMP_PHASE_AGENT_INVENTORY_FROM value:argocd") || !strings.Contains(env, "CMP_PHASE_AGENT_ARGOCD_TOKEN_FILE value:/var/run/cmp-phase/argocd/token") ||
			!strings.Contains(env, "name:GOMEMLIMIT") || !strings.Contains(cmdline, "--namespace argocd") ||
			strings.Contains(components, "job-namespace") != strings.Contains(env, "name:CMP_PHASE_AGENT_JOB_NAMESPACE value:cmp-phase-jobs") ||
			strings.Contains(components, "extension") != strings.Contains(env, "name:CMP_PHASE_AGENT_EXTENSION_ADDR value::9404") ||
			!strings.Contains(fmt.Sprint(agent["volumeMounts"]), "mountPath:/var/run/cmp-phase/argocd name:cmp-phase-argocd readOnly:true") {
			t.Errorf("%s: the agent runs %s with env %s", components, cmdline, env)
		}
		got, was := ruleResources(find(objs, "Role/argocd/cmp-phase-agent")), ruleResources(find(base, "Role/argocd/cmp-phase-agent"))
		var want []string
		for _, r := range was {
			if r == "[][secrets]:[get list watch]" {
				r = "[][secrets]:[get]"
			}
			if !strings.Contains(components, "job-namespace") || (!strings.Contains(r, "[jobs]") && !strings.Contains(r, "[pods]") && !strings.Contains(r, "[pods/log]")) {
				want = append(want, r)
			}
		}
		if !slices.Contains(was, "[][secrets]:[get list watch]") || !slices.Equal(got, want) {
			t.Errorf("%s: the agent's Role: %v, want %v", components, got, want)
		}
		cm, rbac := fmt.Sprint(find(objs, "ConfigMap/argocd/argocd-cm")["data"]), fmt.Sprint(find(objs, "ConfigMap/argocd/argocd-rbac-cm")["data"])
		if !strings.Contains(cm, "accounts.cmp-phase-agent:apiKey") || strings.Contains(components, "extension") != strings.Contains(cm, "extension.config") ||
			!strings.Contains(rbac, "p, cmp-phase-agent, clusters, get, *, allow") {
			t.Errorf("%s: argocd-cm %s, argocd-rbac-cm %s", components, cm, rbac)
		}
	}
}
