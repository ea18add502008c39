//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/cmp-phase/cmp-phase/test/framework"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestSmokeAppOfAppsThroughRealArgoCD proves the harness: a parent Application rendered by
// a script plugin on the stock argocd-cmp-server yields one child per loopback cluster, the
// real controller syncs them, the ConfigMaps land in each cluster's namespace, and a commit
// reaches every cluster.
func TestSmokeAppOfAppsThroughRealArgoCD(t *testing.T) {
	ctx := context.Background()
	var clusters strings.Builder
	for _, c := range env.Clusters {
		fmt.Fprintf(&clusters, "%s %s\n", c.Name, c.Server)
	}
	if _, err := env.Git.Commit("smoke: app and workload v1", map[string]string{
		"smoke/app/clusters.txt": clusters.String(),
		"smoke/workload/cm.yaml": workloadCM("v1"),
	}); err != nil {
		t.Fatal(err)
	}
	parent := &v1alpha1.Application{
		ObjectMeta: metav1.ObjectMeta{Name: "smoke-parent", Namespace: framework.ArgoNamespace},
		Spec: v1alpha1.ApplicationSpec{
			Project: "default",
			Source: &v1alpha1.ApplicationSource{
				RepoURL: env.Git.URL, TargetRevision: "HEAD", Path: "smoke/app",
				Plugin: &v1alpha1.ApplicationSourcePlugin{Name: "smoke-v1.0"},
			},
			Destination: v1alpha1.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: framework.ArgoNamespace},
			SyncPolicy:  &v1alpha1.SyncPolicy{Automated: &v1alpha1.SyncPolicyAutomated{}},
		},
	}
	if _, err := env.Argo.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).Create(ctx, parent, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitAllSynced(t, "v1")

	if _, err := env.Git.Commit("smoke: workload v2", map[string]string{"smoke/workload/cm.yaml": workloadCM("v2")}); err != nil {
		t.Fatal(err)
	}
	for _, c := range env.Clusters {
		if err := env.Refresh(ctx, "smoke-"+c.Name, false); err != nil {
			t.Fatal(err)
		}
	}
	waitAllSynced(t, "v2")
}

func workloadCM(v string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: smoke\ndata:\n  version: " + v + "\n"
}

// waitAllSynced waits until the parent and every child are Synced and Healthy and every
// cluster's namespace holds the ConfigMap at version v.
func waitAllSynced(t *testing.T, v string) {
	t.Helper()
	env.WaitFor(t, 3*time.Minute, "parent and children Synced+Healthy with workload "+v, func(ctx context.Context) (bool, string) {
		names := []string{"smoke-parent"}
		for _, c := range env.Clusters {
			names = append(names, "smoke-"+c.Name)
		}
		for _, n := range names {
			a, err := env.App(ctx, n)
			if err != nil {
				return false, err.Error()
			}
			if ok, seen := framework.AppSyncedHealthy(a); !ok {
				return false, seen
			}
		}
		for _, c := range env.Clusters {
			cm, err := env.Kube.CoreV1().ConfigMaps(c.Name).Get(ctx, "smoke", metav1.GetOptions{})
			if err != nil {
				return false, fmt.Sprintf("configmap in %s: %v", c.Name, err)
			}
			if cm.Data["version"] != v {
				return false, fmt.Sprintf("configmap in %s at %q", c.Name, cm.Data["version"])
			}
		}
		return true, ""
	})
}
