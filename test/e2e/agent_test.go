package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/inputs"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestAgentDrivesPhasedRollouts: the real agent takes a new parent through its first
// deployment phase by phase, then rolls a spec change out dev → staging → prod in two 50%
// batches; at every observation no child outside the admitted set carries the new revision.
func TestAgentDrivesPhasedRollouts(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		"agented/app/appset.yaml": framework.PhasedSpec("agented", "v1", env.Git.URL),
		"agented/v1/cm.yaml":      framework.Workload("agented", "v1"), "agented/v2/cm.yaml": framework.Workload("agented", "v2"),
	}
	if _, err := env.Git.Commit("agented: v1", files); err != nil {
		t.Fatal(err)
	}
	agentProc, err := env.Start(framework.ProcSpec{Name: "agent", Path: agentBin, Args: []string{
		"--namespace", "argocd", "--kubeconfig", env.Kubeconfig, "--interval", "1s", "--log-level", "debug"}})
	if err != nil {
		t.Fatal(err)
	}
	defer agentProc.Stop(5 * time.Second)
	newParent(ctx, t, "agented", "agented/app", 0)
	waitRollout(t, "the first deployment completes with every cluster on v1", "v1", "")

	r2, _ := revisionOf(t, framework.PhasedSpec("agented", "v2", env.Git.URL))
	if _, err := env.Git.Commit("agented: v2", map[string]string{"agented/app/appset.yaml": framework.PhasedSpec("agented", "v2", env.Git.URL)}); err != nil {
		t.Fatal(err)
	}
	if err := env.Refresh(ctx, "agented", false); err != nil {
		t.Fatal(err)
	}
	waitRollout(t, "the v2 rollout completes", "v2", r2)
}

// waitRollout waits until the rollout completed and every cluster runs version; with
// newRev set it checks on every observation that only admitted children carry it.
func waitRollout(t *testing.T, what, version, newRev string) {
	t.Helper()
	env.WaitFor(t, 5*time.Minute, what, func(ctx context.Context) (bool, string) {
		cm, err := env.Kube.CoreV1().ConfigMaps("argocd").Get(ctx, inputs.StateConfigMap("agented"), metav1.GetOptions{})
		if err != nil {
			return false, "no state yet: " + err.Error()
		}
		st, err := state.FromConfigMap(cm)
		if err != nil {
			t.Fatalf("the agent wrote a state the renderer cannot read: %v", err)
		}
		admitted := map[string]bool{}
		if st.Rollout != nil {
			for _, ph := range st.Rollout.Phases {
				for _, c := range ph.Admitted {
					admitted[c] = true
				}
			}
		}
		var seen []string
		for _, c := range env.Clusters {
			name := "agented-" + c.Name
			a, err := env.App(ctx, name)
			if err != nil {
				return false, err.Error()
			}
			if newRev != "" && a.Annotations[render.AnnotationRevision] == newRev && !admitted[name] {
				t.Fatalf("%s carries revision %s but the state does not admit it", name, newRev)
			}
			if ok, s := framework.AppSyncedHealthy(a); !ok {
				seen = append(seen, s)
			}
			if got, err := env.Kube.CoreV1().ConfigMaps(c.Name).Get(ctx, "agented", metav1.GetOptions{}); err != nil || got.Data["version"] != version {
				seen = append(seen, fmt.Sprintf("%s not on %s", c.Name, version))
			}
		}
		status := "none"
		if st.Rollout != nil {
			status = fmt.Sprintf("%s phase %d (%s)", st.Rollout.Status, st.Rollout.Phase, st.Rollout.Reason)
		}
		done := st.Rollout != nil && st.Rollout.Status == "Completed" && len(seen) == 0
		return done, fmt.Sprintf("generation %d rollout %s; %s", st.Generation, status, strings.Join(seen, "; "))
	})
}
