// Package framework starts a real Kubernetes API server and a real Argo CD on loopback, built
// from Go modules by hack/build-tools.sh, and gives Go tests helpers to drive them.
package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	argoclient "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// ArgoNamespace is where Argo CD runs and Applications live: the namespace the binaries
// default to, so a test passes no flag it does not mean.
const ArgoNamespace = contract.DefaultNamespace

// Cluster is one "cluster": a distinct loopback address of the same API server, or with
// OwnAPIServer, of a kube-apiserver of its own.
type Cluster struct {
	Name   string
	Labels map[string]string
	Server string // filled by Start: https://127.0.0.N:PORT
	// OwnAPIServer gives the cluster a kube-apiserver of its own (its own etcd prefix, no
	// controllers) and its own identity in its Argo CD Secret: a client certificate of a
	// user bound to cluster-admin there only, never the control plane's credentials.
	OwnAPIServer bool
}

// Options configures a test environment.
type Options struct {
	Clusters []Cluster
	// AppResync is the application controller's --app-resync (default 10s).
	AppResync time.Duration
	// AppResyncJitter is its --app-resync-jitter (zero: Argo CD's default, 60s).
	AppResyncJitter time.Duration
	// ApplicationSetController also starts argocd-applicationset-controller with
	// progressive syncs enabled.
	ApplicationSetController bool
	// ScopedClusters scopes each loopback cluster's Argo CD Secret to the cluster's own
	// namespace (namespaces: <name>, clusterResources: false). Every loopback cluster is
	// the same API server: unscoped, each of the application controller's cluster caches
	// watches every object of the stack, so each write (an Application's status, a
	// ConfigMap) is processed once per cluster, which no real fleet does. Children must
	// then deploy namespaced objects into the namespace named after their cluster.
	ScopedClusters bool
	// ArgoCDVersion is the Argo CD every component runs: a version hack/build-tools.sh
	// builds (hack/versions.sh's ARGOCD_PREVIOUS_VERSION for test/compat). Empty:
	// ARGOCD_VERSION, the one the product imports.
	ArgoCDVersion string
	// Plugins are CMP sidecars started before the repo-server.
	Plugins []Plugin
	// KubeOnly starts the API server with Argo CD's CRDs and config objects but no Argo CD
	// program, git server or plugin: for benchmarks that write Applications' status
	// themselves, as Argo CD would, at a size the real controller could not run here.
	KubeOnly bool
	// Bare starts only etcd, the API server and the controller manager: a fresh cluster that
	// a test installs Argo CD and cmp-phase onto as the docs say.
	Bare bool
}

// Plugin is a CMP sidecar. Start receives the environment (socket dir, kubeconfig) and
// returns the program to run; it must create <Env.PluginSockDir>/<Name>.sock.
type Plugin struct {
	Name  string // <name>-<version>, as the Application names it
	Start func(e *Env) ProcSpec
}

// Env is one running stack.
type Env struct {
	Dir           string
	Tools         Tools
	PKI           *PKI
	APIServerURL  string
	Kubeconfig    string
	RestConfig    *rest.Config
	Kube          kubernetes.Interface
	Dynamic       dynamic.Interface
	Argo          argoclient.Interface
	Git           *GitServer
	Clusters      []Cluster
	PluginSockDir string
	// SidecarMetrics is where a CmpPhaseSidecar serves its metrics (host:port), the same
	// across its restarts.
	SidecarMetrics string
	ArgoServer     string // host:port of argocd-server (plaintext)
	AdminPassword  string

	opts      Options
	etcdURL   string
	apiPort   int
	redisAddr string
	repoAddr  string
	mu        sync.Mutex
	pods      sync.Once // Pods: the scheduler and kwok, started on first use
	podsErr   error
	prom      sync.Once // Prometheus: started on first use
	promVal   *Prometheus
	promErr   error
	procs     []*Proc
	closers   []func() error
	// owned are the clusters with an API server of their own, by name.
	owned map[string]*ownCluster
	// forwarders are the clusters' addresses by server URL (CutCluster).
	forwarders map[string]*forwarder
}

// Start brings the whole stack up. On error everything already started is stopped.
func Start(ctx context.Context, opts Options) (_ *Env, err error) {
	if opts.AppResync == 0 {
		opts.AppResync = 10 * time.Second
	}
	tools, err := LoadTools(opts.ArgoCDVersion)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "cmp-phase-e2e-")
	if err != nil {
		return nil, fmt.Errorf("temp dir: %w", err)
	}
	e := &Env{Dir: dir, Tools: tools, opts: opts, PluginSockDir: filepath.Join(dir, "plugins")}
	defer func() {
		if err != nil {
			e.DumpLogs(os.Stderr, 3000)
			e.Stop()
		}
	}()
	for _, d := range []string{"logs", "plugins", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, fmt.Errorf("mkdir %s: %w", d, err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	steps := []func(context.Context) error{
		e.startKube, e.makeClients, e.installArgoCD, e.registerClusters, e.startGit,
		e.startRedis, e.startPlugins, e.startArgoCD,
	}
	if opts.KubeOnly {
		steps = steps[:4]
	}
	if opts.Bare {
		steps = steps[:2]
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func (e *Env) makeClients(context.Context) error {
	var err error
	if e.Kube, err = kubernetes.NewForConfig(e.RestConfig); err != nil {
		return fmt.Errorf("kube client: %w", err)
	}
	if e.Dynamic, err = dynamic.NewForConfig(e.RestConfig); err != nil {
		return fmt.Errorf("dynamic client: %w", err)
	}
	if e.Argo, err = argoclient.NewForConfig(e.RestConfig); err != nil {
		return fmt.Errorf("argo client: %w", err)
	}
	return nil
}

// Start runs a program under the environment's supervision; Stop ends it.
func (e *Env) Start(spec ProcSpec) (*Proc, error) {
	spec.Env = append(spec.Env, "TMPDIR="+filepath.Join(e.Dir, "tmp"))
	p, err := startProc(filepath.Join(e.Dir, "logs"), spec)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.procs = append(e.procs, p)
	e.mu.Unlock()
	return p, nil
}

// Procs lists every program started so far.
func (e *Env) Procs() []*Proc {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*Proc(nil), e.procs...)
}

// Stop ends every program in reverse start order, closes listeners and removes the
// temp dir unless CMP_PHASE_KEEP_E2E is set.
func (e *Env) Stop() {
	procs := e.Procs()
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].Stop(5 * time.Second)
	}
	for _, c := range e.closers {
		_ = c()
	}
	if e.Git != nil {
		e.Git.Close()
	}
	if os.Getenv("CMP_PHASE_KEEP_E2E") == "" {
		_ = os.RemoveAll(e.Dir)
	}
}

// Finish ends a test binary's run on the stack: the logs when the tests failed (code), the
// stack stopped, and no program left behind. It returns the exit code.
func (e *Env) Finish(code int) int {
	if code != 0 {
		e.DumpLogs(os.Stderr, 4000)
	}
	e.Stop()
	if err := CheckNoneLeft(e); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return code
}
