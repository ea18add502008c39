package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argofake "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned/fake"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/cmp-phase/cmp-phase/internal/agent/hookrun"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestAPerClusterJobRunsThroughTheAgent: the agent's own wiring, from the engine's action to
// the Job: the run's cluster (here the in-cluster server, so the agent's own client),
// templated for that cluster, in the child's destination namespace, once the child's
// project permits it; a project that does not is Errored and makes no Job.
func TestAPerClusterJobRunsThroughTheAgent(t *testing.T) {
	for _, tc := range []struct {
		name, permitted string
		want            state.HookStatus
		message         string
	}{
		{"permitted", "web-*", state.HookSucceeded, "Job web-local/"},
		{"denied", "other", state.HookErrored, "AppProject dev-apps does not permit destination server https://kubernetes.default.svc (cluster local) namespace web-local"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := kubefake.NewClientset()
			kube.PrependReactor("create", "jobs", func(act k8stesting.Action) (bool, runtime.Object, error) {
				job := act.(k8stesting.CreateAction).GetObject().(*batchv1.Job)
				job.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
				return false, nil, nil
			})
			argo := argofake.NewSimpleClientset(&v1alpha1.AppProject{ObjectMeta: metav1.ObjectMeta{Name: "dev-apps", Namespace: "argocd"},
				Spec: v1alpha1.AppProjectSpec{Destinations: []v1alpha1.ApplicationDestination{{Server: "*", Namespace: tc.permitted}}}})
			var logs bytes.Buffer
			a := New(kube, argo, Options{Namespace: "argocd"}, slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})), nil, Faults{})
			a.inv = &inventory.Inventory{Clusters: []inventory.Cluster{
				{Name: "local", Server: v1alpha1.KubernetesInternalAPIServerAddr, Labels: map[string]string{"env": "dev", "project": "dev-apps"}},
			}}
			s, err := spec.Parse("spec.yaml", []byte(destSpec), targets.NewCache(8))
			if err != nil {
				t.Fatal(err)
			}
			_, body, id, err := s.Revision()
			if err != nil {
				t.Fatal(err)
			}
			st := &state.State{Schema: state.Schema, Generation: 1, Children: []string{"web-local"}, Revisions: map[string]json.RawMessage{id: body},
				Rollout: &state.Rollout{Revision: id, Status: state.RolloutProgressing, Phases: []state.PhaseState{{Name: "dev", Members: []string{"web-local"}, Admitted: []string{"web-local"}}}}}
			p := &pass{plan: &plan.Plan{Rollout: "web", Namespace: "argocd", Revision: id, Body: body, Phases: s.Phases, Children: &plan.ChildEnv{Namespace: "argocd"}}}
			act := rollout.Action{Kind: rollout.ActRunHook, Key: "check/smoke/web-local", Hook: s.Phases[0].Checks[0], Cluster: "web-local", ClusterName: "local"}
			res, _ := a.runs.Attempts(context.Background(), a.hookRun(p, id, act, hookrun.Key("web", st.Rollout, 0, act.Key), time.Unix(100, 0), a.childOf(p, st, act)))
			if res.Status != tc.want || !strings.Contains(res.Message, tc.message) {
				t.Fatalf("got %+v", res)
			}
			jobs, _ := kube.BatchV1().Jobs("").List(context.Background(), metav1.ListOptions{})
			if tc.want != state.HookSucceeded {
				if len(jobs.Items) != 0 {
					t.Fatalf("a Job was made: %v", jobs.Items)
				}
				return
			}
			if len(jobs.Items) != 1 || jobs.Items[0].Namespace != "web-local" || jobs.Items[0].Spec.Template.Spec.Containers[0].Image != "smoke:local" ||
				!strings.Contains(res.Message, "in cluster local Complete") || !strings.Contains(logs.String(), `"auth":"agent"`) {
				t.Fatalf("jobs %+v, message %q, logs %s", jobs.Items, res.Message, logs.String())
			}
		})
	}
}
