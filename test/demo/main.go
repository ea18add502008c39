// Command demo starts a real kube-apiserver, etcd and Argo CD on loopback with six
// "clusters" and the cmp-phase sidecar, then rolls a spec change out phase by phase
// (dev → staging → prod in 50% batches) and shows every cluster's progress.
//
// Everything is the real thing: the cmp-phase sidecar renders through the real CMP socket,
// the cmp-phase agent decides the phases and writes the state, Argo CD syncs the children.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

var fleet = []framework.Cluster{
	{Name: "dev-1", Labels: map[string]string{"env": "dev"}}, {Name: "dev-2", Labels: map[string]string{"env": "dev"}},
	{Name: "staging-1", Labels: map[string]string{"env": "staging"}}, {Name: "staging-2", Labels: map[string]string{"env": "staging"}},
	{Name: "prod-1", Labels: map[string]string{"env": "prod"}}, {Name: "prod-2", Labels: map[string]string{"env": "prod"}},
}

func main() {
	keep := flag.Bool("keep", false, "leave the stack running after the rollout (Ctrl-C stops it)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *keep); err != nil {
		fmt.Fprintf(os.Stderr, "demo: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, keep bool) error {
	say("building cmp-phase")
	binDir, err := os.MkdirTemp("", "cmp-phase-demo-bin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(binDir)
	bin, err := framework.BuildProject(binDir, "./cmd/cmp-phase")
	if err != nil {
		return err
	}
	agentBin, err := framework.BuildProject(binDir, "./cmd/agent")
	if err != nil {
		return err
	}
	say("starting etcd, kube-apiserver, kube-controller-manager, redis, Argo CD and the cmp-phase sidecar on loopback")
	start := time.Now()
	env, err := framework.Start(ctx, framework.Options{Clusters: fleet, AppResync: 10 * time.Second,
		Plugins: []framework.Plugin{{Name: contract.PluginName, Start: framework.CmpPhaseSidecar(bin)}}})
	if err != nil {
		return err
	}
	defer func() { say("stopping everything the demo started"); env.Stop() }()
	say(fmt.Sprintf("stack up in %s: API server %s, argocd-server http://%s (admin / %s)", time.Since(start).Round(time.Second), env.APIServerURL, env.ArgoServer, env.AdminPassword))
	if _, err := env.Start(framework.ProcSpec{Name: "agent", Path: agentBin, Args: []string{
		"--namespace", framework.ArgoNamespace, "--kubeconfig", env.Kubeconfig, "--metrics-addr", "127.0.0.1:0", "--hook-allow-private"}}); err != nil {
		return err
	}
	d := &demo{env: env}
	defer func() {
		if d.health != nil {
			d.health.Close()
		}
	}()
	if err := d.rollout(ctx); err != nil {
		return err
	}
	say("summary: cmp-phase status " + demoName)
	out, err := exec.CommandContext(ctx, bin, "status", demoName, "--kubeconfig", env.Kubeconfig, "-n", framework.ArgoNamespace).CombinedOutput()
	fmt.Print(string(out))
	if err != nil {
		return fmt.Errorf("cmp-phase status: %w", err)
	}
	if keep {
		hints(env, bin)
		say("press Ctrl-C to stop")
		<-ctx.Done()
		return nil
	}
	say("run hack/demo.sh --keep to leave the stack running and poke at it with kubectl, argocd and cmp-phase (Ctrl-C stops it)")
	return nil
}

// hints says how to poke at the stack left running.
func hints(env *framework.Env, bin string) {
	argocd := filepath.Join(env.Tools.ArgoDir, "argocd")
	say("left running. Try:")
	fmt.Printf("  KUBECONFIG=%s %s get applications -n argocd\n", env.Kubeconfig, env.Tools.Kubectl)
	fmt.Printf("  KUBECONFIG=%s %s get configmap %s-state -n argocd -o yaml\n", env.Kubeconfig, env.Tools.Kubectl, demoName)
	fmt.Printf("  %s status %s --kubeconfig %s -n argocd --watch\n", bin, demoName, env.Kubeconfig)
	fmt.Printf("  %s pause %s --reason 'a look around' --kubeconfig %s -n argocd\n", bin, demoName, env.Kubeconfig)
	fmt.Printf("  %s login %s --plaintext --username admin --password %s && %s app list\n", argocd, env.ArgoServer, env.AdminPassword, argocd)
}

// demoName is the rollout: the progressive example's name.
const demoName = "guestbook"

type demo struct {
	env    *framework.Env
	health *httptest.Server // the clusters' health endpoint the example checks
}

// rollout applies examples/progressive (dev → staging → prod, a health check per cluster,
// soaks of 30s and 1m), then commits a change to it and shows that rollout too.
func (d *demo) rollout(ctx context.Context) error {
	e := d.env
	health := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	d.health = health
	v1, err := framework.ProgressiveExample(e.Git.URL, health.URL, "v1")
	if err != nil {
		return err
	}
	files := map[string]string{"guestbook/app/appset.yaml": v1,
		"guestbook/v1/cm.yaml": framework.Workload(demoName, "v1"), "guestbook/v2/cm.yaml": framework.Workload(demoName, "v2")}
	if _, err := e.Git.Commit("guestbook: the progressive example", files); err != nil {
		return err
	}
	if err := e.NewParent(ctx, demoName, "guestbook/app", 0); err != nil {
		return err
	}
	say("applied examples/progressive: the agent admits dev, checks each cluster's health, soaks 30s, then staging (1m soak), then prod")
	if err := d.watch(ctx, "v1"); err != nil {
		return err
	}
	v2, err := framework.ProgressiveExample(e.Git.URL, d.health.URL, "v2")
	if err != nil {
		return err
	}
	if _, err := e.Git.Commit("guestbook: v2", map[string]string{"guestbook/app/appset.yaml": v2}); err != nil {
		return err
	}
	if err := e.Refresh(ctx, demoName, false); err != nil {
		return err
	}
	say("committed a change (the app's v2): the same phases again; clusters not admitted keep running v1")
	if err := d.watch(ctx, "v2"); err != nil {
		return err
	}
	say("rollout complete: every cluster runs v2; each phase waited for its clusters to sync the new spec, be Healthy and pass their checks")
	return nil
}

// watch redraws the fleet whenever it changes until the rollout of version completed.
func (d *demo) watch(ctx context.Context, version string) error {
	deadline, last := time.Now().Add(8*time.Minute), ""
	for {
		done, table := d.table(ctx, version)
		if table != last {
			fmt.Print(table)
			last = table
		}
		if done {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the rollout of %s did not complete in 8 minutes", version)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// table shows the rollout's phase and each cluster's version, sync, health and state.
func (d *demo) table(ctx context.Context, version string) (bool, string) {
	var b strings.Builder
	st, _ := d.readState(ctx)
	status, phases := "waiting for the agent", []state.PhaseState(nil)
	if st != nil && st.Rollout != nil {
		r := st.Rollout
		phases = r.Phases
		status = fmt.Sprintf("%s, generation %d", r.Status, st.Generation)
		if r.Phase < len(r.Phases) {
			status = fmt.Sprintf("phase %d/%d %s (%s), generation %d", r.Phase+1, len(r.Phases), r.Phases[r.Phase].Name, r.Phases[r.Phase].Status, st.Generation)
			if s := r.Phases[r.Phase].SoakUntil; s != nil && time.Until(*s) > 0 {
				status += fmt.Sprintf(", soaking %ds", int(time.Until(*s).Seconds()+0.5))
			}
		}
	}
	fmt.Fprintf(&b, "  rollout: %s\n  %-10s %-5s %-10s %-9s %s\n", status, "CLUSTER", "RUNS", "SYNC", "HEALTH", "ROLLOUT")
	allOn := true
	for _, c := range fleet {
		runs, sync, health := "-", "-", "-"
		if a, err := d.env.App(ctx, demoName+"-"+c.Name); err == nil {
			sync, health = string(a.Status.Sync.Status), string(a.Status.Health.Status)
		}
		if cm, err := d.env.Kube.CoreV1().ConfigMaps(c.Name).Get(ctx, demoName, metav1.GetOptions{}); err == nil {
			runs = cm.Data["version"]
		}
		allOn = allOn && runs == version && sync == "Synced" && health == "Healthy"
		fmt.Fprintf(&b, "  %-10s %-5s %-10s %-9s %s\n", c.Name, runs, sync, health, clusterState(phases, demoName+"-"+c.Name))
	}
	done := allOn && st != nil && st.Rollout != nil && st.Rollout.Status == "Completed"
	return done, b.String()
}

func clusterState(phases []state.PhaseState, child string) string {
	for _, ph := range phases {
		if cs, ok := ph.Clusters[child]; ok {
			return ph.Name + ": " + string(cs.Status)
		}
	}
	return "not admitted"
}

func (d *demo) readState(ctx context.Context) (*state.State, error) {
	cm, err := d.env.Kube.CoreV1().ConfigMaps(framework.ArgoNamespace).Get(ctx, contract.StateConfigMap(demoName), metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return state.FromConfigMap(cm)
}

func say(s string) { fmt.Printf("\n==> %s  [%s]\n", s, time.Now().Format("15:04:05")) }
