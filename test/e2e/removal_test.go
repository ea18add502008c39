//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestRemovalNeedsProof (not parallel: the inventory is the whole stack's). A cluster
// Secret deleted and recreated within the removal grace moves nobody and deletes nothing;
// Secrets gone for longer have their children removed, latest phase first — with
// confirmRemoval, only once a person wrote the confirm-removal key.
func TestRemovalNeedsProof(t *testing.T) {
	ctx := context.Background()
	r := newPhased(t, "removal", "rollback")
	r.confirmRemoval = true
	defer r.agent("agent-removal", nil, "--removal-grace", "15s").Stop(5 * time.Second)
	r.firstDeployment(ctx, framework.Workload(r.name, "v2"))
	byName := map[string]framework.Cluster{}
	for _, c := range env.Clusters {
		byName[c.Name] = c
	}
	restore := func(names ...string) {
		for _, n := range names {
			if err := env.PutClusterSecret(ctx, byName[n]); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(func() { // after the agent stopped: the stack's inventory as the other tests expect it
		restore("dev-2", "prod-2")
		if err := env.PublishInventory(context.Background()); err != nil {
			t.Error(err)
		}
	})

	r.deleteClusterSecret(ctx, "prod-2")
	r.eventually("ClusterAbsent")
	restore("prod-2")
	time.Sleep(25 * time.Second) // past the grace
	st, _ := r.state(ctx)
	if len(st.Removing) != 0 || len(st.Children) != len(env.Clusters) {
		t.Fatalf("a Secret back within the grace removes nothing: removing %v children %v", st.Removing, st.Children)
	}
	for _, c := range env.Clusters {
		a, err := env.App(ctx, r.name+"-"+c.Name)
		if err != nil || len(a.Status.History) != 1 {
			t.Fatalf("%s is untouched: %v", r.name+"-"+c.Name, err)
		}
	}

	r.deleteClusterSecret(ctx, "dev-2")
	r.deleteClusterSecret(ctx, "prod-2")
	r.eventually(rollout.EvRemovalAwaitsConfirmation)
	time.Sleep(5 * time.Second)
	for _, c := range env.Clusters {
		if _, err := env.App(ctx, r.name+"-"+c.Name); err != nil {
			t.Fatalf("nothing is deleted before the key: %v", err)
		}
	}
	cm, err := env.Kube.CoreV1().ConfigMaps(framework.ArgoNamespace).Get(ctx, contract.StateConfigMap(r.name), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["confirm-removal"], cm.Data["by"] = "all", "e2e"
	if _, err := env.Kube.CoreV1().ConfigMaps(framework.ArgoNamespace).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitFor(t, 3*time.Minute, "the children of the clusters gone for longer are removed", func(ctx context.Context) (bool, string) {
		var gone []string
		for _, c := range env.Clusters {
			_, err := env.App(ctx, r.name+"-"+c.Name)
			switch {
			case apierrors.IsNotFound(err):
				gone = append(gone, c.Name)
			case err != nil:
				return false, err.Error()
			}
		}
		if len(gone) > 2 || (len(gone) > 0 && !slices.Contains([]string{"dev-2", "prod-2"}, gone[0])) {
			t.Fatalf("only dev-2 and prod-2 leave: %v", gone)
		}
		return len(gone) == 2, fmt.Sprint("gone: ", gone)
	})
	st, _ = r.state(ctx)
	var order []string
	for _, e := range st.Rollout.History {
		if e.Event == rollout.EvClusterRemoving {
			order = append(order, e.Message)
		}
	}
	if len(order) != 2 || !strings.Contains(order[0], "prod-2") || !strings.Contains(order[1], "dev-2") {
		t.Fatalf("removed latest phase first: %q", order)
	}
}

func (r *phased) deleteClusterSecret(ctx context.Context, name string) {
	r.t.Helper()
	if err := env.Kube.CoreV1().Secrets(framework.ArgoNamespace).Delete(ctx, "cluster-"+name, metav1.DeleteOptions{}); err != nil {
		r.t.Fatal(err)
	}
}
