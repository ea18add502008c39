//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// phased is one rollout of framework.PhasedSpec on the shared stack, driven by agents of
// its own (sharded by --rollout-selector, with their own Lease), so rollouts run in parallel.
type phased struct {
	t        *testing.T
	name     string
	onFail   string // the prod phases' onFailure action
	versions map[string]string
	metrics  string // the last started agent's metrics address
	// confirmRemoval adds confirmRemoval: true to the spec.
	confirmRemoval bool
	// edit, when set, changes the spec text last (e.g. adds a field to some phases).
	edit func(string) string
	// fresh, when set, is a workload version no cluster outside the admitted set may run
	// while a rollout is active (read from the workload in each cluster).
	fresh string
}

func newPhased(t *testing.T, name, onFail string) *phased {
	return &phased{t: t, name: name, onFail: onFail, versions: map[string]string{}}
}

func (r *phased) spec(version string) string {
	s := strings.ReplaceAll(framework.PhasedSpec(r.name, version, env.Git.URL), "action: rollback", "action: "+r.onFail)
	if r.confirmRemoval {
		s = strings.Replace(s, "      type: phaseDeployment\n", "      type: phaseDeployment\n      confirmRemoval: true\n", 1)
	}
	if r.edit != nil {
		s = r.edit(s)
	}
	return s
}

// commit puts version's spec in git (with the given workloads), and returns its revision.
func (r *phased) commit(version string, workloads map[string]string) string {
	r.t.Helper()
	files := map[string]string{r.name + "/app/appset.yaml": r.spec(version)}
	for v, body := range workloads {
		files[r.name+"/"+v+"/cm.yaml"] = body
	}
	if _, err := env.Git.Commit(r.name+": "+version, files); err != nil {
		r.t.Fatal(err)
	}
	rev, _ := revisionOf(r.t, r.spec(version))
	r.versions[rev] = version
	return rev
}

// agent starts an agent for this rollout only, serving metrics on r.metrics; extraEnv and
// args are added.
func (r *phased) agent(proc string, extraEnv []string, args ...string) *framework.Proc {
	r.t.Helper()
	port, err := framework.FreePort()
	if err != nil {
		r.t.Fatal(err)
	}
	r.metrics = "127.0.0.1:" + strconv.Itoa(port)
	p, err := env.Start(framework.ProcSpec{Name: proc, Path: agentBin, Env: extraEnv, Args: append([]string{"--metrics-addr", r.metrics,
		"--namespace", framework.ArgoNamespace, "--kubeconfig", env.Kubeconfig, "--log-level", "debug",
		"--rollout-selector", contract.LabelRollout + "=" + r.name, "--lease-name", "cmp-phase-agent-" + r.name}, args...)})
	if err != nil {
		r.t.Fatal(err)
	}
	return p
}

func (r *phased) state(ctx context.Context) (*state.State, error) {
	cm, err := env.Kube.CoreV1().ConfigMaps(framework.ArgoNamespace).Get(ctx, contract.StateConfigMap(r.name), metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	st, err := state.FromConfigMap(cm)
	if err != nil {
		r.t.Fatalf("the agent wrote a state the renderer cannot read: %v", err)
	}
	return st, nil
}

// until waits for the rollout of rev (every child, when rev is the deployed revision) to
// reach status, checking at every observation that no child outside the admitted set
// carries rev and, once deployed, that none of the six children is gone.
func (r *phased) until(what string, rev string, status state.RolloutStatus, want map[string]string) {
	r.t.Helper()
	env.WaitFor(r.t, 6*time.Minute, what, func(ctx context.Context) (bool, string) {
		st, err := r.state(ctx)
		if err != nil {
			return false, "no state yet: " + err.Error()
		}
		admitted := admittedOrReturning(st)
		var seen []string
		for _, c := range env.Clusters {
			name := r.name + "-" + c.Name
			a, err := env.App(ctx, name)
			if err != nil {
				if len(st.Children) > 0 {
					r.t.Fatalf("child %s is gone: %v", name, err)
				}
				return false, err.Error()
			}
			if a.Annotations[contract.AnnotationRevision] == rev && rev != st.Deployed && st.Rollout.Active() && admitted[name] == "" && !r.admittedNow(ctx, name, rev) {
				r.t.Fatalf("%s carries revision %s but the state does not admit it", name, rev)
			}
			r.checkFresh(ctx, st, c.Name, name, admitted)
			if ok, s := framework.AppSyncedHealthy(a); !ok && want[c.Name] != "" {
				seen = append(seen, s)
			}
			if v := want[c.Name]; v != "" {
				if got, err := env.Kube.CoreV1().ConfigMaps(c.Name).Get(ctx, r.name, metav1.GetOptions{}); err != nil || got.Data["version"] != v {
					seen = append(seen, fmt.Sprintf("%s not on %s", c.Name, v))
				}
			}
		}
		desc := "no rollout"
		if ro := st.Rollout; ro != nil {
			desc = fmt.Sprintf("%s %s phase %d (%s)", r.versions[ro.Revision], ro.Status, ro.Phase, ro.Reason)
		}
		done := st.Rollout != nil && st.Rollout.Revision == rev && st.Rollout.Status == status && len(seen) == 0
		return done, fmt.Sprintf("generation %d: %s; %s", st.Generation, desc, strings.Join(seen, "; "))
	})
}

// checkFresh fails the test when cluster runs r.fresh while the active rollout does not
// admit its child (admission is written before the child moves).
func (r *phased) checkFresh(ctx context.Context, st *state.State, cluster, child string, admitted map[string]string) {
	if r.fresh == "" || !st.Rollout.Active() || admitted[child] != "" {
		return
	}
	if got, err := env.Kube.CoreV1().ConfigMaps(cluster).Get(ctx, r.name, metav1.GetOptions{}); err == nil && got.Data["version"] == r.fresh && !r.admittedNow(ctx, child, "") {
		r.t.Fatalf("cluster %s runs %s but the state does not admit %s", cluster, r.fresh, child)
	}
}

// admittedOrReturning maps the children the active rollout admitted, or is returning in a
// rollback (the re-render follows), to their phase.
func admittedOrReturning(st *state.State) map[string]string {
	admitted := st.Rollout.AdmittedPhases()
	if st.Rollout != nil {
		for _, ph := range st.Rollout.Phases {
			for _, c := range ph.Returning {
				admitted[c] = ph.Name
			}
		}
	}
	return admitted
}

// admittedNow reads the state again after a child was seen moved: the agent moves an
// admitted child the moment it wrote the admission, so the child may have moved after the
// state this observation read. Admission is always written first, so the state read now
// admits it — or the rollout is no longer the active one with rev undeployed.
func (r *phased) admittedNow(ctx context.Context, child, rev string) bool {
	st, err := r.state(ctx)
	if err != nil {
		return false
	}
	if !st.Rollout.Active() || (rev != "" && rev == st.Deployed) {
		return true
	}
	return admittedOrReturning(st)[child] != ""
}

// everywhere is version on every cluster.
func everywhere(version string) map[string]string {
	out := map[string]string{}
	for _, c := range env.Clusters {
		out[c.Name] = version
	}
	return out
}

// syncedOnce checks that every child synced the given version exactly once: RollingSync
// syncs apps about twice (argo-cd#21502); a phased rollout must not.
func (r *phased) syncedOnce(ctx context.Context, version string) {
	r.t.Helper()
	r.syncedOnceWhere(ctx, version, func(h v1alpha1.RevisionHistory) bool { return h.Source.Path == r.name+"/"+version })
}

// syncedOnceWhere checks that every child's history has exactly one entry that is what.
func (r *phased) syncedOnceWhere(ctx context.Context, what string, is func(v1alpha1.RevisionHistory) bool) {
	r.t.Helper()
	for _, c := range env.Clusters {
		a, err := env.App(ctx, r.name+"-"+c.Name)
		if err != nil {
			r.t.Fatal(err)
		}
		if n := len(slices.DeleteFunc(slices.Clone(a.Status.History), func(h v1alpha1.RevisionHistory) bool { return !is(h) })); n != 1 {
			r.t.Errorf("%s synced %s %d times, want exactly once: %s", a.Name, what, n, historyOf(a))
		}
	}
}

func historyOf(a *v1alpha1.Application) string {
	var out []string
	for _, h := range a.Status.History {
		out = append(out, fmt.Sprintf("%s@%s %s", h.Source.Path, h.Revision[:min(7, len(h.Revision))], h.DeployedAt.Format(time.TimeOnly)))
	}
	return strings.Join(out, ", ")
}

// events are the Kubernetes Events' reasons on the parent, oldest first.
func (r *phased) events(ctx context.Context) []string {
	list, err := env.Kube.CoreV1().Events(framework.ArgoNamespace).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + r.name})
	if err != nil {
		r.t.Fatal(err)
	}
	slices.SortFunc(list.Items, func(a, b corev1Event) int { return a.FirstTimestamp.Compare(b.FirstTimestamp.Time) })
	var out []string
	for _, e := range list.Items {
		out = append(out, e.Reason)
	}
	return out
}

// scrapePhases samples the agent's /metrics until the test ends; the returned func gives
// the values the rollout's phase gauge took (besides 0), in order of first sight.
func (r *phased) scrapePhases(ctx context.Context) func() []string {
	var mu sync.Mutex
	var seen []string
	ctx, cancel := context.WithCancel(ctx)
	r.t.Cleanup(cancel)
	prefix := `cmp_phase_rollout_phase{rollout="` + r.name + `"} `
	go func() {
		for ctx.Err() == nil {
			if resp, err := http.Get("http://" + r.metrics + "/metrics"); err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				for _, line := range strings.Split(string(b), "\n") {
					if v, ok := strings.CutPrefix(line, prefix); ok && v != "0" {
						mu.Lock()
						if !slices.Contains(seen, v) {
							seen = append(seen, v)
						}
						mu.Unlock()
					}
				}
			}
			time.Sleep(200 * time.Millisecond)
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// counter reads one sample (name with its labels, as exposed) from the agent's /metrics;
// 0 when it is not there.
func (r *phased) counter(sample string) float64 {
	r.t.Helper()
	resp, err := http.Get("http://" + r.metrics + "/metrics")
	if err != nil {
		r.t.Fatalf("scrape the agent: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, sample+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				r.t.Fatalf("%s: %v", line, err)
			}
			return f
		}
	}
	return 0
}

// eventually waits for an Event with reason on the parent (Events are sent asynchronously).
func (r *phased) eventually(reason string) {
	r.t.Helper()
	env.WaitFor(r.t, 30*time.Second, "a "+reason+" Event on the parent", func(ctx context.Context) (bool, string) {
		ev := r.events(ctx)
		return slices.Contains(ev, reason), fmt.Sprint(ev)
	})
}

// firstDeployment commits v1 (with the given v2 workload for later), makes the parent and
// waits for every cluster to run v1.
func (r *phased) firstDeployment(ctx context.Context, v2 string) string {
	r.t.Helper()
	rev := r.commit("v1", map[string]string{"v1": framework.Workload(r.name, "v1"), "v2": v2, "v3": framework.Workload(r.name, "v3")})
	newParent(ctx, r.t, r.name, r.name+"/app", 0)
	r.until("the first deployment completes with every cluster on v1", rev, rollout.StatusCompleted, everywhere("v1"))
	return rev
}

// TestAgentDrivesPhasedRollouts: the real agent takes a new parent through its first
// deployment phase by phase, then rolls v2 out dev → staging → prod in two 50% batches with
// a refresh after the commit, then v3 with Argo CD noticing the commit by polling only. At
// every observation no child outside the admitted set carries the new revision; every child
// syncs each version exactly once; the parent's Events tell the story.
func TestAgentDrivesPhasedRollouts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "agented", "rollback")
	defer r.agent("agent-agented", nil).Stop(5 * time.Second)
	phases := r.scrapePhases(ctx)
	r.firstDeployment(ctx, framework.Workload("agented", "v2"))
	r.syncedOnce(ctx, "v1")

	r2 := r.commit("v2", nil)
	if err := env.Refresh(ctx, r.name, false); err != nil {
		t.Fatal(err)
	}
	r.until("v2 (refreshed after the commit) completes", r2, rollout.StatusCompleted, everywhere("v2"))
	r.syncedOnce(ctx, "v2")
	r.parentSays(string(rollout.StatusCompleted), r2)
	if code, out := r.cliCode("status", r.name, "--wait", "--timeout", "1m", "-o", "json"); code != 0 || !strings.Contains(out, `"status": "Completed"`) {
		t.Fatalf("status --wait on a completed rollout: exit %d\n%s", code, out)
	}

	r3 := r.commit("v3", nil) // no refresh: the parent notices by polling
	r.until("v3 (noticed by polling) completes", r3, rollout.StatusCompleted, everywhere("v3"))
	r.syncedOnce(ctx, "v3")
	st, err := r.state(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Deployed != r3 || len(st.Revisions) != 1 {
		t.Fatalf("the final deployed revision is v3 and nothing else is kept: %s %v", st.Deployed, st.Revisions)
	}
	if seen := phases(); !slices.Equal(seen, []string{"1", "2", "3", "4"}) {
		t.Errorf("the phase gauge on /metrics went through %v, want every phase 1-4", seen)
	}
	parent, err := env.App(ctx, r.name)
	if err != nil {
		t.Fatal(err)
	}
	r.loseState(ctx, phaseGenOf(parent), r3)
	for _, want := range []string{"StateRebuilt", rollout.EvRolloutStarted, rollout.EvPhaseStarted, rollout.EvPhaseSoaking, rollout.EvPhaseSucceeded, rollout.EvRolloutCompleted} {
		r.eventually(want)
	}
}

// parentSays waits until the parent's annotations carry the rollout of rev at status.
func (r *phased) parentSays(status, rev string) {
	r.t.Helper()
	env.WaitFor(r.t, time.Minute, "the parent's annotations say "+status, func(ctx context.Context) (bool, string) {
		parent, err := env.App(ctx, r.name)
		if err != nil {
			return false, err.Error()
		}
		a := parent.Annotations
		return a[contract.ParentStatus] == status && a[contract.ParentRolloutRevision] == rev && strings.HasPrefix(a[contract.ParentRolloutID], rev+"@"),
			fmt.Sprint(a[contract.ParentStatus], " ", a[contract.ParentRolloutRevision])
	})
}

// loseState deletes the state ConfigMap and waits for the agent to rebuild it from the live
// children: the same deployed revision, nobody pinned, a generation past the one the
// parent names (phaseGen), and the parent rendering again (the renderer fails closed
// meanwhile: PHASE_GEN names a missing state).
func (r *phased) loseState(ctx context.Context, phaseGen int64, deployed string) {
	r.t.Helper()
	if err := env.Kube.CoreV1().ConfigMaps(framework.ArgoNamespace).Delete(ctx, contract.StateConfigMap(r.name), metav1.DeleteOptions{}); err != nil {
		r.t.Fatal(err)
	}
	env.WaitFor(r.t, 2*time.Minute, "the agent rebuilds the lost state", func(ctx context.Context) (bool, string) {
		st, err := r.state(ctx)
		if err != nil {
			return false, err.Error()
		}
		if st.Deployed != deployed || len(st.Pinned) != 0 || len(st.Children) != len(env.Clusters) {
			r.t.Fatalf("rebuilt wrongly: deployed %s pinned %v children %v", st.Deployed, st.Pinned, st.Children)
		}
		parent, err := env.App(ctx, r.name)
		if err != nil {
			return false, err.Error()
		}
		ok, s := framework.AppSyncedHealthy(parent)
		return st.Generation > phaseGen && ok, fmt.Sprintf("generation %d; parent %s", st.Generation, s)
	})
}

// TestAgentFailurePolicies: v2 makes prod-2's child Degraded. With onFailure: stop the
// rollout stops at prod and names the cluster; with rollback every admitted cluster returns
// to v1, latest phase first. No child is ever deleted.
func TestAgentFailurePolicies(t *testing.T) {
	t.Parallel()
	for _, policy := range []string{"stop", "rollback"} {
		t.Run(policy, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			r := newPhased(t, "fail-"+policy, policy)
			defer r.agent("agent-fail-"+policy, nil).Stop(5 * time.Second)
			r.firstDeployment(ctx, framework.DegradedWorkload(r.name, "v2", "prod-2"))
			r2 := r.commit("v2", nil)
			if err := env.Refresh(ctx, r.name, false); err != nil {
				t.Fatal(err)
			}
			if policy == "stop" {
				want := everywhere("v2")
				delete(want, "prod-2") // Degraded, on v2, stays where it stopped
				r.until("the rollout stops at prod", r2, rollout.StatusStopped, want)
				st, _ := r.state(ctx)
				if !strings.Contains(st.Rollout.Reason, r.name+"-prod-2") || !strings.Contains(st.Rollout.Reason, "Degraded") {
					t.Fatalf("the reason names the cluster and why: %q", st.Rollout.Reason)
				}
				r.eventually(rollout.EvRolloutStopped)
				r.parentSays(string(rollout.StatusStopped), r2)
				if code, out := r.cliCode("status", r.name, "--wait", "--timeout", "1m"); code != 1 || !strings.Contains(out, "Stopped") {
					t.Fatalf("status --wait on a stopped rollout: exit %d, want 1\n%s", code, out)
				}
				return
			}
			r.until("the rollout rolls back to v1", r2, rollout.StatusRolledBack, everywhere("v1"))
			st, _ := r.state(ctx)
			for _, c := range env.Clusters {
				a, err := env.App(ctx, r.name+"-"+c.Name)
				if err != nil {
					t.Fatal(err)
				}
				if rev, _, _ := st.RevisionOf(a.Name); a.Annotations[contract.AnnotationRevision] != rev || rev == r2 {
					t.Fatalf("%s runs %s after the rollback", a.Name, a.Annotations[contract.AnnotationRevision])
				}
			}
			var order []string
			for _, e := range st.Rollout.History {
				if e.Event == rollout.EvPhaseRollingBack {
					order = append(order, e.Message)
				}
			}
			if len(order) != 4 || !strings.HasPrefix(order[0], "phase prod:") || !strings.HasPrefix(order[3], "phase dev:") {
				t.Fatalf("reverse phase order: %q", order)
			}
		})
	}
}
