//go:build e2e

package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argoinformers "github.com/argoproj/argo-cd/v3/pkg/client/informers/externalversions"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// stack is one real stack with every setup deployed, and the run being watched.
type stack struct {
	env    *framework.Env
	setups []*setup
	agent  *framework.Proc

	mu      sync.Mutex
	cur     *record
	version int
}

// startStack brings up the stack (Argo CD's applicationset-controller with progressive
// syncs, the cmp-phase sidecar and one agent), deploys every setup at v0 and watches.
func startStack(b *testing.B, resync, jitter time.Duration) *stack {
	b.Helper()
	ctx := context.Background()
	env, err := framework.Start(ctx, framework.Options{
		Clusters: fleet, AppResync: resync, AppResyncJitter: jitter, ApplicationSetController: true, ScopedClusters: true,
		Plugins: []framework.Plugin{{Name: "cmp-phase-v1", Start: framework.CmpPhaseSidecar(bins.CmpPhase)}},
	})
	if err != nil {
		b.Fatalf("start stack: %v", err)
	}
	s := &stack{env: env, setups: setups()}
	b.Cleanup(func() {
		if b.Failed() {
			env.DumpLogs(logWriter{b}, 3000)
		}
		env.Stop()
		if err := framework.CheckNoneLeft(env); err != nil {
			b.Error(err)
		}
	})
	port, err := framework.FreePort()
	if err != nil {
		b.Fatal(err)
	}
	args := []string{"--namespace", "argocd", "--kubeconfig", env.Kubeconfig, "--log-level", "debug",
		"--metrics-addr", "127.0.0.1:" + strconv.Itoa(port)}
	if os.Getenv("CMP_PHASE_BENCH_WARM") != "0" {
		token, err := env.APITokenFile(ctx, "cmp-phase")
		if err != nil {
			b.Fatal(err)
		}
		args = append(args, "--argocd-server", "http://"+env.ArgoServer, "--argocd-token-file", token)
	}
	if s.agent, err = env.Start(framework.ProcSpec{Name: "agent", Path: bins.Agent, Args: args}); err != nil {
		b.Fatal(err)
	}
	s.watch(ctx, b)
	for _, st := range s.setups {
		if st.kind == "floor" {
			if st.floor, err = newFloorClient(ctx, env); err != nil {
				b.Fatal(err)
			}
		}
		if err := st.create(ctx, env, st); err != nil {
			b.Fatalf("create %s: %v", st.name, err)
		}
	}
	for _, st := range s.setups {
		s.quiesce(b, st, "v0")
	}
	return s
}

// watch feeds every Application and workload ConfigMap change to the current run.
func (s *stack) watch(ctx context.Context, b *testing.B) {
	stop := make(chan struct{})
	b.Cleanup(func() { close(stop) })
	af := argoinformers.NewSharedInformerFactoryWithOptions(s.env.Argo, 0, argoinformers.WithNamespace("argocd"))
	kf := informers.NewSharedInformerFactory(s.env.Kube, 0)
	onApp := func(obj any) {
		if app, ok := obj.(*v1alpha1.Application); ok {
			if r := s.current(); r != nil {
				r.onApp(app, time.Now())
			}
		}
	}
	onCM := func(obj any) {
		if cm, ok := obj.(*corev1.ConfigMap); ok {
			if r := s.current(); r != nil {
				r.onWorkload(cm, time.Now())
			}
		}
	}
	apps, cms := af.Argoproj().V1alpha1().Applications().Informer(), kf.Core().V1().ConfigMaps().Informer()
	_, _ = apps.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: onApp, UpdateFunc: func(_, n any) { onApp(n) }})
	_, _ = cms.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: onCM, UpdateFunc: func(_, n any) { onCM(n) }})
	af.Start(stop)
	kf.Start(stop)
	if !cache.WaitForCacheSync(ctx.Done(), apps.HasSynced, cms.HasSynced) {
		b.Fatal("informers did not sync")
	}
}

func (s *stack) current() *record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

func (s *stack) setCurrent(r *record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cur = r
}

// quiesce waits until every child of st runs version, Synced and Healthy with nothing
// running, and (for cmp-phase) its rollout is over; then a second more.
func (s *stack) quiesce(b *testing.B, st *setup, version string) {
	b.Helper()
	s.env.WaitFor(b, 5*time.Minute, st.name+" settled on "+version, func(ctx context.Context) (bool, string) {
		for _, c := range s.env.Clusters {
			app, err := s.env.App(ctx, st.child(c))
			if err != nil {
				return false, err.Error()
			}
			if ok, why := framework.AppSyncedHealthy(app); !ok || app.Operation != nil {
				return false, why
			}
			cm, err := s.env.Kube.CoreV1().ConfigMaps(c.Name).Get(ctx, st.name, metav1.GetOptions{})
			if err != nil || cm.Data["version"] != version {
				return false, c.Name + " not on " + version
			}
		}
		if !st.phased() {
			return true, ""
		}
		st, err := s.state(ctx, st)
		if err != nil {
			return false, err.Error()
		}
		return !st.Rollout.Active(), "rollout still active"
	})
	time.Sleep(time.Second)
}

// state reads a cmp-phase setup's rollout state.
func (s *stack) state(ctx context.Context, st *setup) (*state.State, error) {
	cm, err := s.env.Kube.CoreV1().ConfigMaps("argocd").Get(ctx, contract.StateConfigMap(st.name), metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return state.FromConfigMap(cm)
}

// generation is a cmp-phase setup's state generation (0 for RollingSync).
func (s *stack) generation(ctx context.Context, b *testing.B, st *setup) int64 {
	if !st.phased() {
		return 0
	}
	state, err := s.state(ctx, st)
	if err != nil {
		b.Fatal(err)
	}
	return state.Generation
}

// run commits a new version of st's workload, announces it (mode refresh: Argo CD's git
// webhook, as a git host sends it) or not (polling), and records until every cluster runs it.
func (s *stack) run(b *testing.B, st *setup, mode string) *record {
	b.Helper()
	ctx := context.Background()
	s.version++
	version := "v" + strconv.Itoa(s.version)
	r := newRecord(st, s.env.Clusters)
	r.version = version
	for _, c := range s.env.Clusters {
		app, err := s.env.App(ctx, st.child(c))
		if err != nil {
			b.Fatal(err)
		}
		r.base(app)
	}
	gen := s.generation(ctx, b, st)
	before, err := s.env.Git.Head()
	if err != nil {
		b.Fatal(err)
	}
	s.setCurrent(r)
	defer s.setCurrent(nil)
	r.mu.Lock()
	r.commitAt = time.Now()
	r.mu.Unlock()
	sha, err := s.env.Git.Commit(st.name+": "+version, map[string]string{st.workloadPath(): st.workload(version)})
	if err != nil {
		b.Fatal(err)
	}
	r.mu.Lock()
	r.sha = sha
	r.mu.Unlock()
	if mode == "refresh" {
		if err := s.webhook(ctx, before, sha, st.workloadPath()); err != nil {
			b.Fatal(err)
		}
		r.refresh = time.Now()
	}
	driven := make(chan error, 1)
	if st.floor != nil {
		dctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
		defer cancel()
		go func() { driven <- st.drive(dctx, r, s.env.Clusters) }()
	}
	deadline := time.Now().Add(15 * time.Minute)
	for !r.complete() {
		select {
		case err := <-driven:
			if err != nil {
				b.Fatalf("%s %s: the driver: %v", st.name, mode, err)
			}
		default:
		}
		if time.Now().After(deadline) {
			s.env.DumpApps(logWriter{b})
			b.Fatalf("%s %s: %s not complete after 15m", st.name, mode, version)
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.quiesce(b, st, version)
	r.writes = int(s.generation(ctx, b, st) - gen)
	return r
}

// webhook posts a GitHub push event to argocd-server's /api/webhook, as a git host does.
func (s *stack) webhook(ctx context.Context, before, after, path string) error {
	payload := map[string]any{
		"ref": "refs/heads/main", "before": before, "after": after,
		"repository": map[string]any{"html_url": s.env.Git.URL, "default_branch": "main"},
		"commits":    []map[string]any{{"id": after, "added": []string{}, "modified": []string{path}, "removed": []string{}}},
	}
	body, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+s.env.ArgoServer+"/api/webhook", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "push")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("webhook: %s", resp.Status)
	}
	return nil
}

// logWriter writes to a benchmark's log.
type logWriter struct{ tb testing.TB }

func (w logWriter) Write(p []byte) (int, error) {
	w.tb.Log(string(p))
	return len(p), nil
}
