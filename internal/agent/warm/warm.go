package warm

import (
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"sync"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cmp-phase/cmp-phase/internal/agent/argoapi"
)

const (
	warmWorkers = 2    // calls to argocd-server at once
	warmQueue   = 64   // warms waiting; beyond it they are dropped (it is only a head start)
	warmSeen    = 4096 // (child, revision) pairs remembered as warmed
)

// Job is one child at one revision.
type Job struct{ App, Namespace, Revision string }

// Warmer runs warms off the rollout's path: a bounded queue, a few workers, each
// (child, revision) once.
type Warmer struct {
	api   *argoapi.Client
	queue chan Job
	seen  *lru.Cache[Job, struct{}]
	done  *prometheus.CounterVec
	mu    sync.Mutex
	gens  map[string]int64 // rollout → the state generation whose next batch was warmed
}

// New is a warmer of argocd-server api, its counter registered with reg (nil: not); nil
// without an api.
func New(api *argoapi.Client, reg prometheus.Registerer) *Warmer {
	if api == nil {
		return nil
	}
	seen, _ := lru.New[Job, struct{}](warmSeen)
	w := &Warmer{api: api, queue: make(chan Job, warmQueue), seen: seen, gens: map[string]int64{},
		done: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cmp_phase_manifest_warms_total",
			Help: "Children whose manifests the agent asked argocd-server for ahead of their move, by result (warmed, failed, dropped)."}, []string{"result"})}
	if reg != nil {
		reg.MustRegister(w.done)
	}
	return w
}

// Run works the queue until ctx ends.
func (w *Warmer) Run(ctx context.Context, log *slog.Logger) {
	var wg sync.WaitGroup
	for range warmWorkers {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case job := <-w.queue:
					if err := w.api.WarmManifests(ctx, job.App, job.Namespace, job.Revision); err != nil {
						// never asked again: a warm shares the comparison's cache key, and the
						// repo-server pauses a key's generation after a few failures in a row
						w.done.WithLabelValues("failed").Inc()
						log.Warn("manifest warm failed", "child", job.App, "revision", job.Revision, "error", err)
						continue
					}
					w.done.WithLabelValues("warmed").Inc()
					log.Debug("manifests warmed", "child", job.App, "revision", job.Revision)
				}
			}
		})
	}
	wg.Wait()
}

// FirstLook reports whether this state generation of the rollout has not been looked at.
func (w *Warmer) FirstLook(rollout string, gen int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gens[rollout] == gen {
		return false
	}
	w.gens[rollout] = gen
	return true
}

// Looked is the state generation of the rollout FirstLook last saw (0: none, or no
// warmer): the engine previews a rollout's next batch only for another generation
// (rollout.Observed.Warmed).
func (w *Warmer) Looked(rollout string) int64 {
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gens[rollout]
}

// Forget drops what the warmer remembers of a rollout (its plan is gone).
func (w *Warmer) Forget(rollout string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.gens, rollout)
}

// Add queues a warm not done yet; a full queue drops it.
func (w *Warmer) Add(job Job) {
	if ok, _ := w.seen.ContainsOrAdd(job, struct{}{}); ok {
		return
	}
	select {
	case w.queue <- job:
	default:
		w.seen.Remove(job)
		w.done.WithLabelValues("dropped").Inc()
	}
}

// Warmable says at which revision live's move to doc can be warmed: only when the move
// changes nothing but the source's targetRevision (one source, same destination and
// project), the rest of the repo-server's cache key; otherwise a warm would generate
// manifests no comparison reads.
func Warmable(live *v1alpha1.Application, doc []byte) (string, bool) {
	var want v1alpha1.Application
	if err := json.Unmarshal(doc, &want); err != nil || live.Spec.Source == nil || want.Spec.Source == nil ||
		live.Spec.HasMultipleSources() || want.Spec.HasMultipleSources() ||
		live.Spec.SourceHydrator != nil || want.Spec.SourceHydrator != nil { // argocd-server renders a hydrator's dry source
		return "", false
	}
	from, to := *live.Spec.Source, *want.Spec.Source
	rev := to.TargetRevision
	if rev == "" || rev == from.TargetRevision {
		return "", false
	}
	from.TargetRevision, to.TargetRevision = "", ""
	same := reflect.DeepEqual(from, to) && reflect.DeepEqual(live.Spec.Destination, want.Spec.Destination) &&
		live.Spec.Project == want.Spec.Project
	return rev, same
}
