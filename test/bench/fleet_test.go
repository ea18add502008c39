//go:build e2e

package bench

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argoclient "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// fleetName is the benchmark's rollout (and, unsharded, its parent).
const fleetName = "fleet"

// BenchmarkFleet is issue 15's measurement at 10,000 clusters: the real agent and the real
// sidecar against the real API server, 10,000 child Applications whose status the
// benchmark writes as Argo CD would (fleetargo_test.go), each iteration one rollout of a
// new version through 1%, 10% and all. It reports the agent's and the sidecar's peak RSS,
// the agent's decision time, status written → state says done, and the sidecar's render
// time per parent. CMP_PHASE_FLEET_CLUSTERS (default 10000) and CMP_PHASE_FLEET_SHARDS
// (default 1) size it.
func BenchmarkFleet(b *testing.B) {
	n, shards := envInt(b, "CMP_PHASE_FLEET_CLUSTERS", 10000), envInt(b, "CMP_PHASE_FLEET_SHARDS", 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := startFleet(ctx, b, n, shards)
	f.rollout(ctx, b, 0) // the first deployment: every child created, phase by phase
	b.ResetTimer()
	go f.profile(ctx, b, "cpu.pprof", "profile?seconds=60")
	for i := range b.N {
		f.rollout(ctx, b, i+1)
	}
	b.StopTimer()
	f.profile(ctx, b, "heap.pprof", "heap")
	fams, err := scrape(ctx, f.metricsURL)
	if err != nil {
		b.Fatal(err)
	}
	decide, err := decideTimes(fams)
	if err != nil {
		b.Fatal(err)
	}
	for step, h := range passTimes(fams) {
		b.ReportMetric(float64(h.mean.Microseconds())/1000, "pass-"+step+"-mean-ms")
		b.ReportMetric(float64(h.p99.Microseconds())/1000, "pass-"+step+"-p99-bucket-ms")
	}
	lat50, lat99, r50, r99, counted := f.rec.quantiles()
	f.agentRSS.report(b, "agent")
	f.sidecarRSS.report(b, "sidecar")
	f.floorRSS.report(b, "floor")
	b.ReportMetric(float64(decide.mean.Microseconds())/1000, "decide-mean-ms")
	b.ReportMetric(float64(decide.p99.Microseconds())/1000, "decide-p99-bucket-ms")
	b.ReportMetric(lat50.Seconds(), "status-to-state-p50-s")
	b.ReportMetric(lat99.Seconds(), "status-to-state-p99-s")
	b.ReportMetric(float64(r50.Microseconds())/1000, "render-p50-ms")
	b.ReportMetric(float64(r99.Microseconds())/1000, "render-p99-ms")
	for _, s := range f.rec.slowest {
		b.Logf("slow: %s", s)
	}
	b.Logf("%d clusters, %d shard parent(s): %d decisions, %d children timed from status to state", n, shards, decide.n, counted)
}

// fleetStack is the running benchmark stack.
type fleetStack struct {
	env                  *framework.Env
	kube                 kubernetes.Interface
	apps                 argoclient.Interface
	argo                 *argo
	rec                  *fleetRecord
	root                 string
	shards               int
	metricsURL           string
	agentRSS, sidecarRSS peakRSS
	floorRSS             peakRSS // the floor program's (test/bench/floor): the imports alone
	agentPID, sidecarPID int
}

func startFleet(ctx context.Context, b *testing.B, n, shards int) *fleetStack {
	b.Helper()
	env, err := framework.Start(ctx, framework.Options{KubeOnly: true})
	if err != nil {
		b.Fatalf("start stack: %v", err)
	}
	b.Cleanup(func() {
		if b.Failed() {
			env.DumpLogs(logWriter{b}, 3000)
		}
		env.Stop()
	})
	cfg := rest.CopyConfig(env.RestConfig)
	cfg.QPS, cfg.Burst = 2000, 4000
	cfg.WarningHandler = rest.NoWarnings{}
	f := &fleetStack{env: env, kube: kubernetes.NewForConfigOrDie(cfg), apps: argoclient.NewForConfigOrDie(cfg), rec: newFleetRecord(), shards: shards, root: b.TempDir()}
	if err := f.clusters(ctx, n); err != nil {
		b.Fatal(err)
	}
	sidecar := framework.CmpPhaseSidecar(bins.CmpPhase)
	proc, err := env.StartPlugin(ctx, framework.Plugin{Name: contract.PluginName, Start: func(e *framework.Env) framework.ProcSpec {
		s := sidecar(e)
		s.Args = append(s.Args, "--log-level", "info")
		return s
	}})
	if err != nil {
		b.Fatal(err)
	}
	f.sidecarPID = proc.PID()
	go f.sidecarRSS.sample(ctx, proc.PID())
	plugin, err := env.DialPlugin()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = plugin.Close() })
	f.argo = &argo{env: env, kube: f.kube, apps: f.apps, plugin: plugin, root: f.root, m: f.rec}
	if err := f.argo.start(ctx); err != nil {
		b.Fatal(err)
	}
	port, err := framework.FreePort()
	if err != nil {
		b.Fatal(err)
	}
	f.metricsURL = "http://127.0.0.1:" + strconv.Itoa(port) + "/metrics"
	agent, err := env.Start(framework.ProcSpec{Name: "agent", Path: bins.Agent, Args: []string{
		"--namespace", framework.ArgoNamespace, "--kubeconfig", env.Kubeconfig, "--log-level", "info",
		"--metrics-addr", "127.0.0.1:" + strconv.Itoa(port), "--kube-api-qps", "300", "--kube-api-burst", "600", "--profiling",
		"--max-apps-per-phase", "100000", // the fleet's phases take up to every cluster: over seed 000's 1,000
	}, Env: goDebug()})
	if err != nil {
		b.Fatal(err)
	}
	f.agentPID = agent.PID()
	go f.agentRSS.sample(ctx, agent.PID())
	floor, err := env.Start(framework.ProcSpec{Name: "floor", Path: floorBin})
	if err != nil {
		b.Fatal(err)
	}
	go f.floorRSS.sample(ctx, floor.PID())
	go f.watchState(ctx)
	return f
}

// clusters registers n cluster Secrets in three regions, 32 at a time. Their wave and shard
// labels place them for the ApplicationSet peer (fleetappset_test.go); cmp-phase reads neither.
func (f *fleetStack) clusters(ctx context.Context, n int) error {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 32)
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			region := []string{"eu-west-1", "us-east-1", "ap-south-1"}[i%3]
			name := fmt.Sprintf("prod-%s-%05d", region, i)
			_, err := f.kube.CoreV1().Secrets(framework.ArgoNamespace).Create(ctx, &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: "cluster-" + name, Labels: map[string]string{
					contract.LabelSecretType: contract.SecretTypeCluster, "env": "prod", "region": region,
					"wave": wave(i), "shard": strconv.Itoa(i % f.shards)}},
				StringData: map[string]string{"name": name, "server": "https://" + name + ".k8s.example.com", "config": "{}"},
			}, metav1.CreateOptions{})
			if err != nil {
				errs <- fmt.Errorf("cluster secret %s: %w", name, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// rollout commits version v (a new spec and workload directory at a new commit), makes
// every parent render it (a refresh), and waits until the rollout of it is over.
func (f *fleetStack) rollout(ctx context.Context, b *testing.B, v int) {
	b.Helper()
	version := "v" + strconv.Itoa(v)
	files := map[string]string{
		"fleet/app/appset.yaml":                        framework.FleetSpec(version),
		"fleet/workload/" + version + "/workload.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fleet\ndata:\n  version: " + version + "\n",
	}
	for p, body := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(f.root, p)), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(f.root, p), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	sum := sha1.Sum([]byte(version))
	f.argo.mu.Lock()
	f.argo.commit = hex.EncodeToString(sum[:])
	f.argo.mu.Unlock()
	f.rec.newRollout()
	began := time.Now()
	if v == 0 {
		f.parents(ctx, b)
	} else {
		for _, p := range f.parentNames() {
			f.argo.parents.Add(p)
		}
	}
	f.env.WaitFor(b, 20*time.Minute, "the rollout of "+version+" over", func(ctx context.Context) (bool, string) {
		cm, err := f.kube.CoreV1().ConfigMaps(framework.ArgoNamespace).Get(ctx, contract.StateConfigMap(fleetName), metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		st, err := state.FromConfigMap(cm)
		if err != nil {
			return false, err.Error()
		}
		r := st.Rollout
		if r == nil || r.Active() || len(st.Children) == 0 || st.Generation < 2 || st.Revisions[st.Deployed] == nil || !strings.Contains(string(st.Revisions[st.Deployed]), version) {
			return false, fmt.Sprintf("generation %d, %d children deployed", st.Generation, len(st.Children))
		}
		return true, ""
	})
	b.Logf("rollout of %s: %s", version, time.Since(began).Round(time.Second))
}

func (f *fleetStack) parentNames() []string {
	if f.shards <= 1 {
		return []string{fleetName}
	}
	var names []string
	for k := range f.shards {
		names = append(names, fmt.Sprintf("%s-%d", fleetName, k))
	}
	return names
}

// parents creates the parent Application(s): one, or one per shard with SHARD=k/N.
func (f *fleetStack) parents(ctx context.Context, b *testing.B) {
	for k, name := range f.parentNames() {
		plugin := &v1alpha1.ApplicationSourcePlugin{Name: contract.PluginName}
		if f.shards > 1 {
			plugin.Env = v1alpha1.Env{{Name: "SHARD", Value: fmt.Sprintf("%d/%d", k, f.shards)}}
		}
		parent := &v1alpha1.Application{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: framework.ArgoNamespace},
			Spec: v1alpha1.ApplicationSpec{
				Project:     "default",
				Source:      &v1alpha1.ApplicationSource{RepoURL: framework.FleetRepoURL, TargetRevision: "HEAD", Path: "fleet/app", Plugin: plugin},
				Destination: v1alpha1.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: framework.ArgoNamespace},
				SyncPolicy:  &v1alpha1.SyncPolicy{Automated: &v1alpha1.SyncPolicyAutomated{}, SyncOptions: v1alpha1.SyncOptions{"ApplyOutOfSyncOnly=true"}},
			},
		}
		if _, err := f.apps.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).Create(ctx, parent, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// watchState feeds every state write to the record.
func (f *fleetStack) watchState(ctx context.Context) {
	for ctx.Err() == nil {
		w, err := f.kube.CoreV1().ConfigMaps(framework.ArgoNamespace).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + contract.StateConfigMap(fleetName)})
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		for ev := range w.ResultChan() {
			if cm, ok := ev.Object.(*corev1.ConfigMap); ok {
				if st, err := state.FromConfigMap(cm); err == nil {
					f.rec.onState(st, time.Now())
				}
			}
		}
	}
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

// wave is cluster i's RollingSync step for the peer: the fleet spec's phases as labels, 1%
// (canary), 10% cumulatively (early: 9% more) and the rest (all), each spread over the regions.
func wave(i int) string {
	switch {
	case i%100 == 0:
		return "canary"
	case i%10 == 0:
		return "early"
	default:
		return "all"
	}
}
