// Command demo starts a real kube-apiserver, etcd and Argo CD on loopback with six
// "clusters" and the cmp-phase sidecar, then rolls a spec change out phase by phase
// (dev → staging → prod in 50% batches) and shows every cluster's progress.
//
// Until the agent lands (issue 4), the demo itself plays the agent's part: it writes the
// state ConfigMap and bumps the parent's PHASE_GEN, exactly the two writes the agent makes.
// Everything else — rendering through the real CMP socket, Argo CD syncing the children,
// health — is the real thing.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
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
	say("starting etcd, kube-apiserver, kube-controller-manager, redis, Argo CD and the cmp-phase sidecar on loopback")
	start := time.Now()
	env, err := framework.Start(ctx, framework.Options{Clusters: fleet, AppResync: 10 * time.Second,
		Plugins: []framework.Plugin{{Name: "cmp-phase-v1", Start: framework.CmpPhaseSidecar(bin)}}})
	if err != nil {
		return err
	}
	defer func() { say("stopping everything the demo started"); env.Stop() }()
	say(fmt.Sprintf("stack up in %s: API server %s, argocd-server http://%s (admin / %s)", time.Since(start).Round(time.Second), env.APIServerURL, env.ArgoServer, env.AdminPassword))
	d := &demo{env: env}
	if err := d.rollout(ctx); err != nil {
		return err
	}
	if keep {
		say("left running. Try:")
		fmt.Printf("  KUBECONFIG=%s %s get applications -n argocd\n", env.Kubeconfig, env.Tools.Kubectl)
		fmt.Printf("  KUBECONFIG=%s %s get configmap demo-state demo-plan -n argocd -o yaml\n", env.Kubeconfig, env.Tools.Kubectl)
		fmt.Printf("  %s login %s --plaintext --username admin --password %s && %s app list\n", env.Tools.ArgoCD, env.ArgoServer, env.AdminPassword, env.Tools.ArgoCD)
		say("press Ctrl-C to stop")
		<-ctx.Done()
	}
	return nil
}

type demo struct {
	env      *framework.Env
	gen      int64
	children []string
	revs     map[string]json.RawMessage
}

func (d *demo) rollout(ctx context.Context) error {
	e := d.env
	for _, c := range fleet {
		d.children = append(d.children, "demo-"+c.Name)
	}
	slices.Sort(d.children)
	if err := e.PublishInventory(ctx); err != nil {
		return err
	}
	r1, err := d.commit("v1", map[string]string{"demo/v1/cm.yaml": framework.Workload("demo", "v1"), "demo/v2/cm.yaml": framework.Workload("demo", "v2")})
	if err != nil {
		return err
	}
	if err := d.write(ctx, &state.State{Deployed: r1, Children: d.children}); err != nil {
		return err
	}
	if err := e.NewParent(ctx, "demo", "demo/app", d.gen); err != nil {
		return err
	}
	say("first deployment: every cluster on v1")
	if err := d.waitFor(ctx, func(string) string { return "v1" }); err != nil {
		return err
	}
	r2, err := d.commit("v2", nil)
	if err != nil {
		return err
	}
	say("committed v2 of the spec: rolling out dev → staging → prod (50% batches)")
	steps := []struct {
		phase    string
		admitted []string
	}{
		{"dev", []string{"demo-dev-1", "demo-dev-2"}},
		{"staging", []string{"demo-staging-1", "demo-staging-2"}},
		{"prod", []string{"demo-prod-1"}},
		{"prod", []string{"demo-prod-1", "demo-prod-2"}},
	}
	var phases []state.PhaseState
	onV2 := map[string]bool{}
	for _, s := range steps {
		if len(phases) == 0 || phases[len(phases)-1].Name != s.phase {
			phases = append(phases, state.PhaseState{Name: s.phase})
		}
		phases[len(phases)-1].Admitted = s.admitted
		for _, a := range s.admitted {
			onV2[strings.TrimPrefix(a, "demo-")] = true
		}
		say(fmt.Sprintf("phase %s: admitting %s", s.phase, strings.Join(s.admitted, ", ")))
		roll := &state.Rollout{Revision: r2, Status: "Progressing", Phase: len(phases) - 1, Phases: slices.Clone(phases), StartedAt: time.Now().UTC()}
		if err := d.write(ctx, &state.State{Deployed: r1, Children: d.children, Rollout: roll}); err != nil {
			return err
		}
		want := func(c string) string {
			if onV2[c] {
				return "v2"
			}
			return "v1"
		}
		if err := d.waitFor(ctx, want); err != nil {
			return err
		}
	}
	if err := d.write(ctx, &state.State{Deployed: r2, Children: d.children}); err != nil {
		return err
	}
	say("rollout complete: every cluster runs v2; each phase waited for its clusters to be Synced and Healthy")
	return nil
}

// commit writes the spec at version v (and extra files) and returns its revision id.
func (d *demo) commit(v string, extra map[string]string) (string, error) {
	y := framework.PhasedSpec("demo", v, d.env.Git.URL)
	files := map[string]string{"demo/app/appset.yaml": y}
	for k, val := range extra {
		files[k] = val
	}
	if _, err := d.env.Git.Commit("demo: "+v, files); err != nil {
		return "", err
	}
	s, err := spec.Parse("appset.yaml", []byte(y), targets.NewCache(4))
	if err != nil {
		return "", err
	}
	_, body, id, err := s.Revision()
	if d.revs == nil {
		d.revs = map[string]json.RawMessage{}
	}
	d.revs[id] = body
	return id, err
}

// write stores the next state generation and points the parent at it: the agent's job.
func (d *demo) write(ctx context.Context, st *state.State) error {
	d.gen++
	st.Schema, st.Generation, st.Revisions = state.Schema, d.gen, d.revs
	if err := d.env.PutState(ctx, "demo", st); err != nil {
		return err
	}
	if d.gen == 1 {
		return nil // the parent does not exist yet; it is created at generation 1
	}
	return d.env.SetPhaseGen(ctx, "demo", d.gen)
}

// waitFor redraws the fleet table until every cluster runs want(cluster), Synced and Healthy.
func (d *demo) waitFor(ctx context.Context, want func(cluster string) string) error {
	deadline := time.Now().Add(4 * time.Minute)
	for {
		done, table := d.table(ctx, want)
		fmt.Print(table)
		if done {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("clusters did not converge in 4 minutes")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

func (d *demo) table(ctx context.Context, want func(string) string) (bool, string) {
	var b strings.Builder
	done := true
	fmt.Fprintf(&b, "  %-10s %-8s %-8s %-10s %-9s\n", "CLUSTER", "WANT", "RUNS", "SYNC", "HEALTH")
	for _, c := range fleet {
		runs, sync, health := "-", "-", "-"
		if a, err := d.env.App(ctx, "demo-"+c.Name); err == nil {
			sync, health = string(a.Status.Sync.Status), string(a.Status.Health.Status)
		}
		if cm, err := d.env.Kube.CoreV1().ConfigMaps(c.Name).Get(ctx, "demo", metav1.GetOptions{}); err == nil {
			runs = cm.Data["version"]
		}
		ok := runs == want(c.Name) && sync == "Synced" && health == "Healthy"
		done = done && ok
		mark := "…"
		if ok {
			mark = "✓"
		}
		fmt.Fprintf(&b, "  %-10s %-8s %-8s %-10s %-9s %s\n", c.Name, want(c.Name), runs, sync, health, mark)
	}
	return done, b.String()
}

func say(s string) { fmt.Printf("\n==> %s  [%s]\n", s, time.Now().Format("15:04:05")) }
