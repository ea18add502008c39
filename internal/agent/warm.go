package agent

import (
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"sync"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cmp-phase/cmp-phase/internal/argoapi"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// A moved child's first comparison generates its manifests at the new commit before Argo CD
// starts its sync (it queues an operation only after the refresh): on the benchmark's
// machine ≈ 0.13 s of each member, one after another. The warmer asks argocd-server for the
// manifests of the children a rollout admits next, at the commit they will move to, while
// the current ones sync; the repo-server caches them under the key the move's comparison
// reads. It only reads: nothing moves earlier, nothing is applied.

const (
	warmWorkers = 2    // calls to argocd-server at once
	warmQueue   = 64   // warms waiting; beyond it they are dropped (it is only a head start)
	warmSeen    = 4096 // (child, revision) pairs remembered as warmed
)

// warm is one child at one revision.
type warm struct{ app, namespace, revision string }

// warmer runs warms off the rollout's path: a bounded queue, a few workers, each
// (child, revision) once.
type warmer struct {
	api   *argoapi.Client
	queue chan warm
	seen  *lru.Cache[warm, struct{}]
	done  *prometheus.CounterVec
	mu    sync.Mutex
	gens  map[string]int64 // rollout → the state generation whose next batch was warmed
}

func newWarmer(api *argoapi.Client, reg prometheus.Registerer) *warmer {
	if api == nil {
		return nil
	}
	seen, _ := lru.New[warm, struct{}](warmSeen)
	w := &warmer{api: api, queue: make(chan warm, warmQueue), seen: seen, gens: map[string]int64{},
		done: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cmp_phase_manifest_warms_total",
			Help: "Children whose manifests the agent asked argocd-server for ahead of their move, by result (warmed, failed, dropped)."}, []string{"result"})}
	if reg != nil {
		reg.MustRegister(w.done)
	}
	return w
}

// run works the queue until ctx ends.
func (w *warmer) run(ctx context.Context, log *slog.Logger) {
	var wg sync.WaitGroup
	for range warmWorkers {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case job := <-w.queue:
					if err := w.api.WarmManifests(ctx, job.app, job.namespace, job.revision); err != nil {
						// never asked again: a warm shares the comparison's cache key, and the
						// repo-server pauses a key's generation after a few failures in a row
						w.done.WithLabelValues("failed").Inc()
						log.Warn("manifest warm failed", "child", job.app, "revision", job.revision, "error", err)
						continue
					}
					w.done.WithLabelValues("warmed").Inc()
					log.Debug("manifests warmed", "child", job.app, "revision", job.revision)
				}
			}
		})
	}
	wg.Wait()
}

// firstLook reports whether this state generation of the rollout has not been looked at.
func (w *warmer) firstLook(rollout string, gen int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gens[rollout] == gen {
		return false
	}
	w.gens[rollout] = gen
	return true
}

// forget drops what the warmer remembers of a rollout (its plan is gone).
func (w *warmer) forget(rollout string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.gens, rollout)
}

// add queues a warm not done yet; a full queue drops it.
func (w *warmer) add(job warm) {
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

// warmNext queues the warms of the children the rollout admits next (the Decision's: the
// rest of the current phase's batch or the next phase's first), rendered as their move
// will render them; once per state generation.
func (a *Agent) warmNext(p *pass, st *state.State) {
	env := p.plan.Children
	if a.warm == nil || st == nil || !st.Rollout.Active() || env == nil || env.Namespace != a.opts.Namespace ||
		!a.warm.firstLook(p.plan.Rollout, st.Generation) {
		return
	}
	keys := p.decision.Warm
	if len(keys) == 0 {
		return
	}
	docs, err := a.renderer.Children(a.childInput(p, p.decision.WarmState), keys)
	if err != nil {
		p.log.Debug("no manifest warm: render of the next batch failed", "error", err)
		return
	}
	for _, k := range keys {
		if live := p.children[k]; live != nil {
			if rev, ok := warmable(live, docs[k]); ok {
				a.warm.add(warm{app: live.Name, namespace: live.Namespace, revision: rev})
			}
		}
	}
}

// warmable says at which revision live's move to doc can be warmed: only when the move
// changes nothing but the source's targetRevision (one source, same destination and
// project), the rest of the repo-server's cache key; otherwise a warm would generate
// manifests no comparison reads.
func warmable(live *v1alpha1.Application, doc []byte) (string, bool) {
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
