//go:build e2e

package bench

import (
	"sync"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	corev1 "k8s.io/api/core/v1"

	"github.com/cmp-phase/cmp-phase/test/framework"
)

// record is what one run saw, each moment stamped when the watch delivered it.
type record struct {
	s        *setup
	sha      string
	version  string
	commitAt time.Time // the commit landed in the repository
	refresh  time.Time // the webhook was sent (zero when polling)
	writes   int       // state writes the rollout took (cmp-phase)

	mu        sync.Mutex
	syncStart map[string]time.Time // child → first sync operation seen after the commit
	starts    map[string]map[time.Time]bool
	ops       map[string]int       // child → operations requested after the commit
	hadOp     map[string]bool      // child → an operation was pending at the last event
	done      map[string]time.Time // child → Synced, Healthy, on the commit, no sync running
	workload  map[string]time.Time // cluster → its workload holds the version
	histBase  map[string]int64     // child → the highest history id before the run
	histCount map[string]int       // child → history entries after the run's start
	children  map[string]framework.Cluster
	notes     []event // the floor's driver: when it asked for each sync
}

func newRecord(s *setup, clusters []framework.Cluster) *record {
	r := &record{s: s, syncStart: map[string]time.Time{}, starts: map[string]map[time.Time]bool{}, ops: map[string]int{},
		hadOp: map[string]bool{}, done: map[string]time.Time{}, workload: map[string]time.Time{},
		histBase: map[string]int64{}, histCount: map[string]int{}, children: map[string]framework.Cluster{}}
	for _, c := range clusters {
		r.children[s.child(c)] = c
	}
	return r
}

// base notes a child's history before the commit, so only the run's syncs count.
func (r *record) base(app *v1alpha1.Application) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.histBase[app.Name] = maxHistoryID(app)
}

func maxHistoryID(app *v1alpha1.Application) int64 {
	var id int64
	for _, h := range app.Status.History {
		id = max(id, h.ID)
	}
	return id
}

// onApp takes one watched state of an Application at time at.
func (r *record) onApp(app *v1alpha1.Application, at time.Time) {
	if _, ok := r.children[app.Name]; !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.commitAt.IsZero() || at.Before(r.commitAt) {
		return
	}
	pending := app.Operation != nil
	if pending && !r.hadOp[app.Name] {
		r.ops[app.Name]++
		r.started(app.Name, at)
	}
	r.hadOp[app.Name] = pending
	if op := app.Status.OperationState; op != nil && !op.StartedAt.Time.Before(r.commitAt.Truncate(time.Second)) {
		if r.starts[app.Name] == nil {
			r.starts[app.Name] = map[time.Time]bool{}
		}
		r.starts[app.Name][op.StartedAt.Time] = true
		if op.Phase == "Running" {
			r.started(app.Name, at)
		}
	}
	n := 0
	for _, h := range app.Status.History {
		if h.ID > r.histBase[app.Name] {
			n++
		}
	}
	r.histCount[app.Name] = n
	if _, seen := r.done[app.Name]; !seen && r.isDone(app) {
		r.done[app.Name] = at
	}
}

func (r *record) started(child string, at time.Time) {
	if _, ok := r.syncStart[child]; !ok {
		r.syncStart[child] = at
	}
}

// isDone: the child runs the commit, synced and Healthy, with nothing running.
func (r *record) isDone(app *v1alpha1.Application) bool {
	st := app.Status
	if st.Sync.Status != v1alpha1.SyncStatusCodeSynced || st.Health.Status != "Healthy" || st.Sync.Revision != r.sha {
		return false
	}
	if app.Operation != nil || (st.OperationState != nil && st.OperationState.Phase == "Running") {
		return false
	}
	if r.s.phased() && (app.Spec.Source == nil || app.Spec.Source.TargetRevision != r.sha) {
		return false
	}
	return true
}

// onWorkload takes one watched state of a workload ConfigMap.
func (r *record) onWorkload(cm *corev1.ConfigMap, at time.Time) {
	if cm.Name != r.s.name || cm.Data["version"] != r.version {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, seen := r.workload[cm.Namespace]; !seen && !r.commitAt.IsZero() {
		r.workload[cm.Namespace] = at
	}
}

// complete: every cluster runs the version and every child is done.
func (r *record) complete() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for child, c := range r.children {
		if _, ok := r.done[child]; !ok {
			return false
		}
		if _, ok := r.workload[c.Name]; !ok {
			return false
		}
	}
	return true
}

// syncs is how many sync operations a child ran for the commit: the most any of three
// witnesses saw (operations requested, distinct start times, history entries).
func (r *record) syncs(child string) int {
	return max(r.ops[child], len(r.starts[child]), r.histCount[child])
}
