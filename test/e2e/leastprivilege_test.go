//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	authv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cmp-phase/cmp-phase/internal/agent/argoapi"
	"github.com/cmp-phase/cmp-phase/internal/clustersecrets"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestLeastPrivilegeAgent: an agent with what manifests/least-privilege grants — its Role
// without list or watch on Secrets (the real API server holds it to that), the component's
// own Argo CD account and policy — reads the clusters from argocd-server's cluster API and
// drives a phased rollout to the end. argocd-server's list gives the inventory the cluster
// Secrets give, byte for byte.
func TestLeastPrivilegeAgent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	kubeconfig, token := leastPrivilegeIdentity(ctx, t)
	for verb, allowed := range map[string]bool{"get": true, "list": false, "watch": false} {
		if got := saMay(ctx, t, "cmp-phase-agent-lp", verb, "secrets"); got != allowed {
			t.Fatalf("the least-privilege agent may %s Secrets: %v, want %v", verb, got, allowed)
		}
	}
	sameInventory(t, token)

	r := newPhased(t, "leastpriv", "rollback")
	agent := r.agent("agent-leastpriv", nil, "--kubeconfig", kubeconfig, "--inventory-from", "argocd", "--inventory-poll", "2s",
		"--argocd-server", "http://"+env.ArgoServer, "--argocd-token-file", token)
	defer agent.Stop(5 * time.Second)
	r.firstDeployment(ctx, framework.Workload(r.name, "v2"))
	r2 := r.commit("v2", nil)
	if err := env.Refresh(ctx, r.name, false); err != nil {
		t.Fatal(err)
	}
	r.until("v2 completes under the least-privilege agent", r2, rollout.StatusCompleted, everywhere("v2"))
	// the inventory ConfigMap is shared with the other tests' agents: this one's own log says
	// it published from argocd-server, and never failed to, nor was refused anything
	log, err := os.ReadFile(agent.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), `"msg":"inventory published"`) || strings.Contains(string(log), `"work":"inventory"`) && strings.Contains(string(log), `"reconcile failed"`) ||
		strings.Contains(string(log), "forbidden") {
		t.Fatalf("the least-privilege agent's log:\n%s", agent.Tail(4000))
	}
}

// leastPrivilegeIdentity applies manifests/base with manifests/least-privilege's agent Role
// to a ServiceAccount cmp-phase-agent-lp (bound as the component binds the agent's), adds
// the component's Argo CD account and policy to the live argocd-cm and argocd-rbac-cm, and
// returns a kubeconfig of the ServiceAccount and a file of the account's API token.
func leastPrivilegeIdentity(ctx context.Context, t *testing.T) (string, string) {
	t.Helper()
	const sa = "cmp-phase-agent-lp"
	m := build(t, "base", "least-privilege")
	ns := framework.ArgoNamespace
	objs := map[string]map[string]any{}
	for _, r := range m.Resources() {
		objs[r.GetKind()+"/"+r.GetName()] = asJSON(t, r)
	}
	role := objs["Role/cmp-phase-agent"]
	role["metadata"] = map[string]any{"name": sa, "namespace": ns}
	binding := map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": map[string]any{"name": sa, "namespace": ns},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": sa},
		"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": sa, "namespace": ns}}}
	account := map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": sa, "namespace": ns}}
	for res, obj := range map[string]map[string]any{"serviceaccounts": account, "roles": role, "rolebindings": binding} {
		gv := schema.GroupVersion{Version: "v1"}
		if res != "serviceaccounts" {
			gv.Group = "rbac.authorization.k8s.io"
		}
		if _, err := env.Dynamic.Resource(gv.WithResource(res)).Namespace(ns).Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %s %s: %v", res, sa, err)
		}
	}
	for cm, key := range map[string]string{"argocd-cm": "accounts.cmp-phase-agent", "argocd-rbac-cm": "policy.cmp-phase-agent.csv"} {
		v, _, _ := unstructured.NestedString(objs["ConfigMap/"+cm], "data", key)
		patch, _ := json.Marshal(map[string]any{"data": map[string]string{key: v}})
		if _, err := env.Kube.CoreV1().ConfigMaps(ns).Patch(ctx, cm, types.MergePatchType, patch, metav1.PatchOptions{}); v == "" || err != nil {
			t.Fatalf("%s %s=%q: %v", cm, key, v, err)
		}
	}
	token, err := env.GenerateAPIToken(ctx, "cmp-phase-agent")
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := env.ServiceAccountKubeconfig(ctx, sa)
	if err != nil {
		t.Fatal(err)
	}
	return kubeconfig, token
}

// saMay asks the API server whether ServiceAccount sa of Argo CD's namespace may verb
// resource there.
func saMay(ctx context.Context, t *testing.T, sa, verb, resource string) bool {
	t.Helper()
	ns := framework.ArgoNamespace
	sar := &authv1.SubjectAccessReview{Spec: authv1.SubjectAccessReviewSpec{
		User:               "system:serviceaccount:" + ns + ":" + sa,
		Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
		ResourceAttributes: &authv1.ResourceAttributes{Verb: verb, Resource: resource, Namespace: ns},
	}}
	got, err := env.Kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return got.Status.Allowed
}

// sameInventory waits until argocd-server's cluster list, read with token, makes the
// inventory the live cluster Secrets make (another test may be changing a Secret).
func sameInventory(t *testing.T, token string) {
	t.Helper()
	api, err := argoapi.New(argoapi.Config{Server: "http://" + env.ArgoServer, TokenFile: token})
	if err != nil {
		t.Fatal(err)
	}
	env.WaitFor(t, time.Minute, "argocd-server's clusters make the Secrets' inventory", func(ctx context.Context) (bool, string) {
		clusters, err := api.Clusters(ctx)
		if err != nil {
			return false, err.Error()
		}
		secrets, err := env.Kube.CoreV1().Secrets(framework.ArgoNamespace).List(ctx, metav1.ListOptions{LabelSelector: contract.ClusterSecretSelector})
		if err != nil {
			return false, err.Error()
		}
		fromAPI, _ := clustersecrets.FromArgoCD(clusters, nil)
		var ptrs []*corev1.Secret
		for i := range secrets.Items {
			ptrs = append(ptrs, &secrets.Items[i])
		}
		fromSecrets, _ := clustersecrets.Read(ptrs)
		a, _ := fromAPI.Encode()
		b, _ := fromSecrets.Encode()
		return len(fromSecrets.Clusters) == len(env.Clusters) && string(a) == string(b), "from argocd-server:\n" + string(a) + "\nfrom the Secrets:\n" + string(b)
	})
}
