//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

func phasedSpecAt(version string) string { return framework.PhasedSpec("phased", version, env.Git.URL) }

func workload(version string) string { return framework.Workload("phased", version) }

// TestRenderThroughRealCMPSocket: the real repo-server renders a parent through our sidecar
// on the real plugin socket; the admitted set follows the state ConfigMap and PHASE_GEN;
// children outside it never change; a corrupt state is a ComparisonError that deletes and
// changes nothing.
func TestRenderThroughRealCMPSocket(t *testing.T) {
	ctx := context.Background()
	children := []string{}
	for _, c := range env.Clusters {
		children = append(children, "phased-"+c.Name)
	}
	slices.Sort(children)

	if _, err := env.Git.Commit("phased: v1", map[string]string{
		"phased/app/appset.yaml": phasedSpecAt("v1"), "phased/v1/cm.yaml": workload("v1"), "phased/v2/cm.yaml": workload("v2"),
	}); err != nil {
		t.Fatal(err)
	}
	r1, b1 := revisionOf(t, phasedSpecAt("v1"))
	putState(ctx, t, "phased", &state.State{Schema: state.Schema, Generation: 1, Deployed: r1, Children: children,
		Revisions: map[string]json.RawMessage{r1: b1}})
	newParent(ctx, t, "phased", "phased/app", 1)
	waitWorkloads(t, "every cluster on v1", func(string) string { return "v1" })

	// Admit dev to v2 at generation 2.
	before := snapshotChildren(ctx, t)
	if _, err := env.Git.Commit("phased: v2", map[string]string{"phased/app/appset.yaml": phasedSpecAt("v2")}); err != nil {
		t.Fatal(err)
	}
	r2, b2 := revisionOf(t, phasedSpecAt("v2"))
	putState(ctx, t, "phased", &state.State{Schema: state.Schema, Generation: 2, Deployed: r1, Children: children,
		Revisions: map[string]json.RawMessage{r1: b1, r2: b2},
		Rollout: &state.Rollout{Revision: r2, Status: "Progressing", StartedAt: time.Now().UTC().Truncate(time.Second),
			Phases: []state.PhaseState{{Name: "dev", Admitted: []string{"phased-dev-1", "phased-dev-2"}}}}})
	setPhaseGen(ctx, t, "phased", 2)
	devOnV2 := func(ns string) string {
		if strings.HasPrefix(ns, "dev-") {
			return "v2"
		}
		return "v1"
	}
	waitWorkloads(t, "dev on v2, the rest on v1", devOnV2)
	after := snapshotChildren(ctx, t)
	for _, c := range children {
		changed := before[c] != after[c]
		admitted := strings.HasPrefix(c, "phased-dev-")
		if changed != admitted {
			t.Errorf("child %s changed=%v but admitted=%v\nbefore: %s\nafter:  %s", c, changed, admitted, before[c], after[c])
		}
	}

	// A corrupt state at generation 3: ComparisonError, nothing deleted or changed.
	cm, err := env.Kube.CoreV1().ConfigMaps(framework.ArgoNamespace).Get(ctx, contract.StateConfigMap("phased"), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.BinaryData[contract.StateKey] = []byte("this is not gzip")
	cm.Data[contract.GenerationKey] = "3"
	putConfigMap(ctx, t, cm)
	setPhaseGen(ctx, t, "phased", 3)
	env.WaitFor(t, 2*time.Minute, "parent ComparisonError naming the state", func(ctx context.Context) (bool, string) {
		a, err := env.App(ctx, "phased")
		if err != nil {
			return false, err.Error()
		}
		for _, c := range a.Status.Conditions {
			if c.Type == "ComparisonError" && strings.Contains(c.Message, contract.StateConfigMap("phased")) {
				return true, c.Message
			}
		}
		_, seen := framework.AppSyncedHealthy(a)
		return false, seen
	})
	// Give the controller a few reconciles to do damage, then prove it did none.
	time.Sleep(15 * time.Second)
	final := snapshotChildren(ctx, t)
	for _, c := range children {
		if final[c] != after[c] {
			t.Errorf("child %s changed under a corrupt state:\nbefore: %s\nafter:  %s", c, after[c], final[c])
		}
	}
	waitWorkloads(t, "workloads untouched under a corrupt state", devOnV2)
}

// snapshotChildren records what the parent controls of each child: spec, labels,
// annotations and finalizers. A missing child is recorded as missing.
func snapshotChildren(ctx context.Context, t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, c := range env.Clusters {
		name := "phased-" + c.Name
		a, err := env.App(ctx, name)
		if err != nil {
			out[name] = "missing: " + err.Error()
			continue
		}
		b, _ := json.Marshal(map[string]any{"spec": a.Spec, "labels": a.Labels, "annotations": a.Annotations, "finalizers": a.Finalizers})
		out[name] = string(b)
	}
	return out
}

// waitWorkloads waits until every child is Synced and Healthy and each cluster's ConfigMap
// holds the version want(namespace) says.
func waitWorkloads(t *testing.T, what string, want func(ns string) string) {
	t.Helper()
	env.WaitFor(t, 3*time.Minute, what, func(ctx context.Context) (bool, string) {
		for _, c := range env.Clusters {
			a, err := env.App(ctx, "phased-"+c.Name)
			if err != nil {
				return false, err.Error()
			}
			if ok, seen := framework.AppSyncedHealthy(a); !ok {
				return false, seen
			}
			var cm *corev1.ConfigMap
			if cm, err = env.Kube.CoreV1().ConfigMaps(c.Name).Get(ctx, "phased", metav1.GetOptions{}); err != nil {
				return false, err.Error()
			}
			if got := cm.Data["version"]; got != want(c.Name) {
				return false, fmt.Sprintf("%s runs %s, want %s", c.Name, got, want(c.Name))
			}
		}
		return true, ""
	})
}
