package install

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/filesys"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"
)

// kustomizeIn builds a kustomization written into a temporary directory (resources and
// components relative to the repository's manifests/, plus extra files there) and returns
// its objects.
func kustomizeIn(t *testing.T, kustomization string, files map[string]string) []map[string]any {
	t.Helper()
	dir := t.TempDir()
	manifests, err := filepath.Abs(filepath.Join("..", "..", "manifests"))
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(dir, manifests)
	if err != nil {
		t.Fatal(err)
	}
	files["kustomization.yaml"] = strings.ReplaceAll(kustomization, "MANIFESTS", rel)
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsNone
	m, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build: %v", err)
	}
	out, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	return docs(t, string(out))
}

func docs(t *testing.T, s string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for _, doc := range strings.Split(s, "\n---\n") {
		var o map[string]any
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatal(err)
		}
		if o != nil {
			objs = append(objs, o)
		}
	}
	return objs
}

// objKey is kind/namespace/name.
func objKey(o map[string]any) string {
	meta, _ := o["metadata"].(map[string]any)
	return fmt.Sprint(o["kind"], "/", meta["namespace"], "/", meta["name"])
}

func find(objs []map[string]any, key string) map[string]any {
	for _, o := range objs {
		if objKey(o) == key {
			return o
		}
	}
	return nil
}

// ruleResources are a Role's rules, each as "group/resource,…:verb,…".
func ruleResources(role map[string]any) []string {
	var out []string
	rules, _ := role["rules"].([]any)
	for _, r := range rules {
		r := r.(map[string]any)
		out = append(out, fmt.Sprintf("%v%v:%v", r["apiGroups"], r["resources"], r["verbs"]))
	}
	return out
}

// TestTheJobNamespaceEnforcesRestricted: manifests/job-namespace makes cmp-phase-jobs,
// labelled for Pod Security Admission to enforce (and warn and audit) `restricted` at the
// running version, its default ServiceAccount without a token, and binds the agent only
// what job hooks need there; every namespaced object stays in it (no `namespace:` moves
// them).
func TestTheJobNamespaceEnforcesRestricted(t *testing.T) {
	objs := kustomizeIn(t, "resources: [MANIFESTS/job-namespace]\n", map[string]string{})
	ns := find(objs, "Namespace/<nil>/cmp-phase-jobs")
	if ns == nil {
		t.Fatalf("no Namespace cmp-phase-jobs in %v", objs)
	}
	labels := ns["metadata"].(map[string]any)["labels"].(map[string]any)
	for _, mode := range []string{"enforce", "warn", "audit"} {
		if labels["pod-security.kubernetes.io/"+mode] != "restricted" || labels["pod-security.kubernetes.io/"+mode+"-version"] != "latest" {
			t.Errorf("cmp-phase-jobs: Pod Security %s is %v at %v, want restricted at latest", mode,
				labels["pod-security.kubernetes.io/"+mode], labels["pod-security.kubernetes.io/"+mode+"-version"])
		}
	}
	for _, o := range objs {
		if ns := o["metadata"].(map[string]any)["namespace"]; o["kind"] != "Namespace" && ns != "cmp-phase-jobs" {
			t.Errorf("%s is not in cmp-phase-jobs", objKey(o))
		}
	}
	if sa := find(objs, "ServiceAccount/cmp-phase-jobs/default"); sa == nil || sa["automountServiceAccountToken"] != false {
		t.Errorf("the job pods' ServiceAccount mounts a token: %v", sa)
	}
	want := []string{"[batch][jobs]:[get create delete]", "[][pods]:[list]", "[][pods/log]:[get]", "[][secrets]:[get]"}
	if got := ruleResources(find(objs, "Role/cmp-phase-jobs/cmp-phase-agent-jobs")); !slices.Equal(got, want) {
		t.Errorf("the agent's job Role: %v, want %v", got, want)
	}
	rb := find(objs, "RoleBinding/cmp-phase-jobs/cmp-phase-agent-jobs")
	if rb == nil || fmt.Sprint(rb["subjects"]) != "[map[kind:ServiceAccount name:cmp-phase-agent namespace:argocd]]" ||
		fmt.Sprint(rb["roleRef"]) != "map[apiGroup:rbac.authorization.k8s.io kind:Role name:cmp-phase-agent-jobs]" {
		t.Errorf("the agent's job RoleBinding: %v", rb)
	}
}

// TestTheJobNamespaceComponentMovesTheAgentsJobs: over Argo CD's install with
// manifests/base (and the UI extension, before or after it), manifests/job-namespace/agent
// gives the agent CMP_PHASE_AGENT_JOB_NAMESPACE=cmp-phase-jobs, keeps its command and args
// whole, and takes exactly the
// Job rules out of its Role in argocd.
func TestTheJobNamespaceComponentMovesTheAgentsJobs(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/argoproj/argo-cd/v3").Output()
	if err != nil {
		t.Fatalf("locate argo-cd's module: %v", err)
	}
	install, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "manifests", "install.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	base := kustomizeIn(t, "namespace: argocd\nresources: [install.yaml]\ncomponents: [MANIFESTS/base]\n", map[string]string{"install.yaml": string(install)})
	for _, components := range []string{"MANIFESTS/base, MANIFESTS/job-namespace/agent", "MANIFESTS/base, MANIFESTS/extension, MANIFESTS/job-namespace/agent",
		"MANIFESTS/base, MANIFESTS/job-namespace/agent, MANIFESTS/extension"} {
		objs := kustomizeIn(t, "namespace: argocd\nresources: [install.yaml]\ncomponents: ["+components+"]\n", map[string]string{"install.yaml": string(install)})
		agent := agentContainer(t, objs)
		cmdline, env := fmt.Sprint(agent["command"], agent["args"]), fmt.Sprint(agent["env"])
		if cmdline != "[/usr/local/bin/agent] [--namespace argocd --metrics-addr :9402]" || !strings.Contains(env, "name:CMP_PHASE_AGENT_JOB_NAMESPACE value:cmp-phase-jobs") ||
			strings.Contains(components, "extension") != strings.Contains(env, "name:CMP_PHASE_AGENT_EXTENSION_ADDR") {
			t.Errorf("%s: the agent runs %s with env %s", components, cmdline, env)
		}
		got, was := ruleResources(find(objs, "Role/argocd/cmp-phase-agent")), ruleResources(find(base, "Role/argocd/cmp-phase-agent"))
		var kept []string
		for _, r := range was {
			if !strings.Contains(r, "[jobs]") && !strings.Contains(r, "[pods]") && !strings.Contains(r, "[pods/log]") {
				kept = append(kept, r)
			}
		}
		if len(kept) != len(was)-3 || !slices.Equal(got, kept) {
			t.Errorf("%s: the agent's Role in argocd: %v, want %v (manifests/base's without its Job rules)", components, got, kept)
		}
	}
}

func agentContainer(t *testing.T, objs []map[string]any) map[string]any {
	t.Helper()
	d := find(objs, "Deployment/argocd/argocd-repo-server")
	if d == nil {
		t.Fatal("no argocd-repo-server")
	}
	pod := d["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	for _, c := range pod["containers"].([]any) {
		if c.(map[string]any)["name"] == "cmp-phase-agent" {
			return c.(map[string]any)
		}
	}
	t.Fatal("no cmp-phase-agent container")
	return nil
}
