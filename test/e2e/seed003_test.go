//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// seed003 is seed 003's RollingSync example as written, but for where it deploys from and
// to: the loopback repository (under seed003/), the three loopback clusters its elements
// name, and the rollout's name (unique in the shared stack). Its children have no
// automated sync.
func seed003(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(framework.RepoRoot(), "internal", "spec", "testdata", "seeds", "003-guestbook-rolling-sync.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for from, to := range map[string]string{
		"  name: guestbook\n": "  name: seed003\n",
		"repoURL: https://github.com/infra-team/cluster-deployments.git": "repoURL: " + env.Git.URL,
		"path: guestbook/":      "path: seed003/guestbook/",
		"url: https://1.2.3.4":  "url: " + env.Clusters[0].Server,
		"url: https://2.4.6.8":  "url: " + env.Clusters[2].Server,
		"url: https://9.8.7.6/": "url: " + env.Clusters[4].Server,
	} {
		if strings.Count(s, from) != 1 {
			t.Fatalf("seed 003 no longer has %q once", from)
		}
		s = strings.Replace(s, from, to, 1)
	}
	// a fourth element no step selects (seed 003: "excluded from the rolling sync and must
	// be synced manually")
	return strings.Replace(s, "        url: "+env.Clusters[4].Server+"\n        env: env-prod\n",
		"        url: "+env.Clusters[4].Server+"\n        env: env-prod\n      - cluster: engineering-sandbox\n        url: "+env.Clusters[1].Server+"\n        env: env-sandbox\n", 1)
}

var seed003Clusters = []string{"engineering-dev", "engineering-qa", "engineering-prod"}

// seed003Workloads are one ConfigMap per cluster directory, at version.
func seed003Workloads(version string) map[string]string {
	out := map[string]string{}
	for _, c := range append(slices.Clone(seed003Clusters), "engineering-sandbox") {
		out["seed003/guestbook/"+c+"/cm.yaml"] = framework.Workload("seed003-"+c, version)
	}
	return out
}

// TestSeed003PushedChangeInStepOrder: seed 003's example, whose children have no automated
// sync, takes a pushed change to the manifests to every cluster in step order (the qa
// step's maxUpdate: 0 gate opened by a person), and never to a cluster before its step.
func TestSeed003PushedChangeInStepOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "seed003", "stop")
	for _, obj := range []string{
		`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"guestbook"}}`,
		`{"apiVersion":"argoproj.io/v1alpha1","kind":"AppProject","metadata":{"name":"my-project","namespace":"argocd"},"spec":{"sourceRepos":["*"],"destinations":[{"server":"*","namespace":"*"}],"clusterResourceWhitelist":[{"group":"*","kind":"*"}]}}`,
	} {
		if err := env.ApplyYAML(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	defer r.agent("agent-seed003", nil).Stop(5 * time.Second)
	files := seed003Workloads("v1")
	files["seed003/app/appset.yaml"] = seed003(t)
	if _, err := env.Git.Commit("seed003: v1", files); err != nil {
		t.Fatal(err)
	}
	newParent(ctx, t, r.name, "seed003/app", 0)
	r.throughGate(ctx, "v1")

	if _, err := env.Git.Commit("seed003: v2", seed003Workloads("v2")); err != nil {
		t.Fatal(err)
	}
	if err := env.Refresh(ctx, r.name, false); err != nil {
		t.Fatal(err)
	}
	order := r.throughGate(ctx, "v2")
	if !slices.Equal(order, seed003Clusters) {
		t.Fatalf("the pushed change reached the clusters in order %v, want the steps' %v", order, seed003Clusters)
	}
	unselectedStaysUnsynced(ctx, t)
}

// unselectedStaysUnsynced: the child no step selects exists, rendered by the parent with
// automated sync off and saying why, and nobody synced it: its workload never reached its
// cluster, while every selected cluster runs v2.
func unselectedStaysUnsynced(ctx context.Context, t *testing.T) {
	t.Helper()
	app, err := env.Argo.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).Get(ctx, "engineering-sandbox-guestbook", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the child no step selects is not rendered: %v", err)
	}
	if app.Annotations[contract.AnnotationUnselected] == "" || app.Spec.SyncPolicy != nil && app.Spec.SyncPolicy.IsAutomatedSyncEnabled() {
		t.Fatalf("annotations %v, sync policy %+v", app.Annotations, app.Spec.SyncPolicy)
	}
	if app.Status.OperationState != nil || app.Operation != nil {
		t.Fatalf("the unselected child was synced: %+v %+v", app.Status.OperationState, app.Operation)
	}
	if v, err := seed003Version(ctx, "engineering-sandbox"); err != nil || v != "" {
		t.Fatalf("the unselected cluster runs %q: %v", v, err)
	}
}

// throughGate waits for version to reach every cluster, approving the qa step when it
// waits, and checking at every observation that a cluster runs version only once the
// running rollout admits it. It returns the clusters in the order version reached them.
func (r *phased) throughGate(ctx context.Context, version string) []string {
	r.t.Helper()
	var order []string
	approved := false
	env.WaitFor(r.t, 6*time.Minute, "seed 003 rolls "+version+" out", func(ctx context.Context) (bool, string) {
		st, err := r.state(ctx)
		if err != nil || st.Rollout == nil {
			return false, fmt.Sprint("no rollout yet: ", err)
		}
		admitted := st.Rollout.AdmittedPhases()
		for i, c := range seed003Clusters {
			got, err := seed003Version(ctx, c)
			if err != nil {
				return false, err.Error()
			}
			if got == version && !slices.Contains(order, c) {
				if st.Rollout.Active() && admitted[c+"-guestbook"] == "" && version != "v1" {
					r.t.Fatalf("%s runs %s before its step admits it (step %d)", c, version, i+1)
				}
				order = append(order, c)
			}
		}
		if st.Rollout.Phase == 1 && st.Rollout.Status == state.RolloutProgressing && !approved {
			r.cli("approve", r.name, "step-2", "--reason", "qa sign-off")
			approved = true
		}
		done := len(order) == len(seed003Clusters) && st.Rollout.Status == rollout.StatusCompleted
		return done, fmt.Sprintf("%s phase %d, reached %v", st.Rollout.Status, st.Rollout.Phase, order)
	})
	return order
}

func seed003Version(ctx context.Context, cluster string) (string, error) {
	cm, err := env.Kube.CoreV1().ConfigMaps("guestbook").Get(ctx, "seed003-"+cluster, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return cm.Data["version"], nil
}
