//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	authv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/cmp-phase/cmp-phase/test/framework"
)

// build renders components, in order, over Argo CD v3.5.7's own install.yaml (from the Go
// module cache) with kustomize, as an operator's kustomization would.
func build(t *testing.T, components ...string) resmap.ResMap {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/argoproj/argo-cd/v3").Output()
	if err != nil {
		t.Fatalf("locate argo-cd's module: %v", err)
	}
	install := filepath.Join(strings.TrimSpace(string(out)), "manifests", "install.yaml")
	dir := t.TempDir()
	b, err := os.ReadFile(install)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "install.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, c := range components {
		comp, err := filepath.Abs(filepath.Join("..", "..", "manifests", c))
		if err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(dir, comp) // kustomize takes components by relative path only
		if err != nil {
			t.Fatal(err)
		}
		rels = append(rels, rel)
	}
	k := "namespace: argocd\nresources: [install.yaml]\ncomponents: [" + strings.Join(rels, ", ") + "]\n"
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(k), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsNone
	m, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build: %v", err)
	}
	return m
}

// asJSON is a resource as the JSON map unstructured objects hold (numbers as float64).
func asJSON(t *testing.T, r *resource.Resource) map[string]any {
	t.Helper()
	b, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// container is one container of a rendered Deployment.
func container(t *testing.T, m resmap.ResMap, deployment, name string) map[string]any {
	t.Helper()
	for _, r := range m.Resources() {
		if r.GetKind() == "Deployment" && r.GetName() == deployment {
			cs, _, _ := unstructured.NestedSlice(asJSON(t, r), "spec", "template", "spec", "containers")
			for _, c := range cs {
				if c.(map[string]any)["name"] == name {
					return c.(map[string]any)
				}
			}
		}
	}
	t.Fatalf("no container %s in %s", name, deployment)
	return nil
}

func containerNames(t *testing.T, m resmap.ResMap, deployment string) []string {
	t.Helper()
	for _, r := range m.Resources() {
		if r.GetKind() == "Deployment" && r.GetName() == deployment {
			cs, _, _ := unstructured.NestedSlice(asJSON(t, r), "spec", "template", "spec", "containers")
			var names []string
			for _, c := range cs {
				names = append(names, c.(map[string]any)["name"].(string))
			}
			return names
		}
	}
	return nil
}

// TestManifestsGrantEachIdentityOnlyWhatItNeeds renders manifests/base over Argo CD's
// install, applies its RBAC to the real API server, and asks it (SubjectAccessReview) what
// each identity may do.
func TestManifestsGrantEachIdentityOnlyWhatItNeeds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := build(t, "base")
	if got := containerNames(t, m, "argocd-repo-server"); !slices.Contains(got, "cmp-phase") || !slices.Contains(got, "cmp-phase-agent") {
		t.Fatalf("repo-server containers %v", got)
	}
	for name, token := range map[string]string{"cmp-phase": "cmp-phase-plugin-token", "cmp-phase-agent": "cmp-phase-agent-token"} {
		c := container(t, m, "argocd-repo-server", name)
		if uid, _, _ := unstructured.NestedFloat64(c, "securityContext", "runAsUser"); uid != 999 {
			t.Errorf("%s runs as %v, want 999", name, uid)
		}
		if ro, _, _ := unstructured.NestedBool(c, "securityContext", "readOnlyRootFilesystem"); !ro {
			t.Errorf("%s has a writable root filesystem", name)
		}
		mounts, _, _ := unstructured.NestedSlice(c, "volumeMounts")
		var tokens []string
		for _, mnt := range mounts {
			if v := mnt.(map[string]any)["name"].(string); strings.HasSuffix(v, "-token") {
				tokens = append(tokens, v)
			}
		}
		if !slices.Equal(tokens, []string{token}) {
			t.Errorf("%s mounts tokens %v, want only its own %s", name, tokens, token)
		}
	}
	if got := containerNames(t, build(t, "overlays/agent-deployment"), "argocd-repo-server"); slices.Contains(got, "cmp-phase-agent") {
		t.Fatalf("the overlay keeps the agent in the repo-server: %v", got)
	}
	dyn, ns := env.Dynamic, framework.ArgoNamespace
	for _, r := range m.Resources() {
		if !strings.HasPrefix(r.GetName(), "cmp-phase-") || !slices.Contains([]string{"ServiceAccount", "Role", "RoleBinding"}, r.GetKind()) {
			continue
		}
		obj := asJSON(t, r)
		gv, _ := schema.ParseGroupVersion(r.GetApiVersion())
		res := map[string]string{"ServiceAccount": "serviceaccounts", "Role": "roles", "RoleBinding": "rolebindings"}[r.GetKind()]
		if _, err := dyn.Resource(gv.WithResource(res)).Namespace(ns).Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("apply %s %s: %v", r.GetKind(), r.GetName(), err)
		}
	}
	type ask struct {
		verb, group, resource, ns string
		allowed                   bool
	}
	for sa, asks := range map[string][]ask{
		"cmp-phase-plugin": {
			{"get", "", "configmaps", ns, true}, {"list", "", "configmaps", ns, true}, {"watch", "", "configmaps", ns, true},
			{"update", "", "configmaps", ns, false}, {"get", "", "secrets", ns, false}, {"get", "argoproj.io", "applications", ns, false},
			{"get", "", "configmaps", "default", false},
		},
		"cmp-phase-agent": {
			{"patch", "argoproj.io", "applications", ns, true}, {"update", "argoproj.io", "applications", ns, true},
			{"create", "", "configmaps", ns, true}, {"update", "", "configmaps", ns, true}, {"create", "", "events", ns, true},
			{"create", "coordination.k8s.io", "leases", ns, true}, {"update", "coordination.k8s.io", "leases", ns, true},
			{"get", "", "secrets", ns, true},
			{"get", "", "secrets", "default", false}, {"list", "argoproj.io", "applications", "default", false}, {"get", "", "configmaps", "kube-system", false},
			{"create", "", "secrets", ns, false}, {"delete", "", "configmaps", ns, false}, {"create", "", "pods", ns, false},
			{"patch", "argoproj.io", "appprojects", ns, false}, {"watch", "argoproj.io", "appprojects", ns, true},
			{"get", "batch", "jobs", ns, true}, {"create", "batch", "jobs", ns, true}, {"delete", "batch", "jobs", ns, true},
			{"watch", "batch", "jobs", ns, false}, {"list", "batch", "jobs", ns, false}, {"list", "", "pods", ns, true},
			{"get", "", "pods/log", ns, true}, {"get", "", "pods", ns, false}, {"create", "", "pods/exec", ns, false},
			{"list", "", "pods", "default", false}, {"get", "", "pods/log", "default", false}, {"create", "batch", "jobs", "default", false}, {"update", "batch", "jobs", ns, false},
			{"get", "apps", "deployments", ns, true}, {"get", "apps", "statefulsets", ns, true}, {"get", "apps", "daemonsets", ns, true},
			{"list", "apps", "deployments", ns, false}, {"watch", "apps", "deployments", ns, false}, {"update", "apps", "deployments", ns, false},
			{"get", "apps", "replicasets", ns, false}, {"get", "apps", "deployments", "default", false},
		},
	} {
		for _, a := range asks {
			resource, sub, _ := strings.Cut(a.resource, "/")
			sar := &authv1.SubjectAccessReview{Spec: authv1.SubjectAccessReviewSpec{
				User:               "system:serviceaccount:" + ns + ":" + sa,
				Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
				ResourceAttributes: &authv1.ResourceAttributes{Verb: a.verb, Group: a.group, Resource: resource, Subresource: sub, Namespace: a.ns},
			}}
			got, err := env.Kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Status.Allowed != a.allowed {
				t.Errorf("%s %s %s/%s in %s: allowed=%v, want %v", sa, a.verb, a.group, a.resource, a.ns, got.Status.Allowed, a.allowed)
			}
		}
	}
}

// TestManifestsKeepGitOutOfThePluginTarball: the Component sets argocd-cmd-params-cm's
// reposerver.plugin.tar.exclusions to .git, and Argo CD's own repo-server reads that key into
// the env its plugin streaming obeys (the harness sets the same env).
func TestManifestsKeepGitOutOfThePluginTarball(t *testing.T) {
	t.Parallel()
	m := build(t, "base")
	var params map[string]any
	for _, r := range m.Resources() {
		if r.GetKind() == "ConfigMap" && r.GetName() == "argocd-cmd-params-cm" {
			params = asJSON(t, r)
		}
	}
	if got, _, _ := unstructured.NestedString(params, "data", "reposerver.plugin.tar.exclusions"); got != ".git" {
		t.Fatalf("argocd-cmd-params-cm reposerver.plugin.tar.exclusions = %q, want .git", got)
	}
	envs, _, _ := unstructured.NestedSlice(container(t, m, "argocd-repo-server", "argocd-repo-server"), "env")
	for _, e := range envs {
		e := e.(map[string]any)
		if e["name"] != "ARGOCD_REPO_SERVER_PLUGIN_TAR_EXCLUSIONS" {
			continue
		}
		ref, _, _ := unstructured.NestedMap(e, "valueFrom", "configMapKeyRef")
		if ref["name"] != "argocd-cmd-params-cm" || ref["key"] != "reposerver.plugin.tar.exclusions" {
			t.Fatalf("the repo-server reads its tar exclusions from %v", ref)
		}
		return
	}
	t.Fatal("the repo-server has no ARGOCD_REPO_SERVER_PLUGIN_TAR_EXCLUSIONS env")
}
