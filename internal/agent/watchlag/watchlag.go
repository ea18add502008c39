package watchlag

import (
	"iter"
	"sync"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// Input is the newest change among what a pass read.
type Input struct {
	Name            string    // the Application
	ResourceVersion string    // its resourceVersion
	Changed         time.Time // its newest status timestamp (zero: none)
}

// Lag is from the change to read (0 when the change carries no time, or read is before it:
// the timestamps are whole seconds).
func (in Input) Lag(read time.Time) time.Duration {
	if in.Changed.IsZero() {
		return 0
	}
	return max(read.Sub(in.Changed), 0)
}

// Newest is the Application of children and more (nil ones skipped) changed last: the
// newest status timestamp (Changed), the highest resourceVersion among those changed in
// the same second; false when there is none. An object the agent itself changed (a move,
// PHASE_GEN) carries no new timestamp: its write is no change the pass waited for.
func Newest(children iter.Seq[*v1alpha1.Application], more ...*v1alpha1.Application) (Input, bool) {
	var best Input
	consider := func(app *v1alpha1.Application) {
		if app == nil {
			return
		}
		in := Input{Name: app.Name, ResourceVersion: app.ResourceVersion, Changed: Changed(app)}
		if best.Name == "" || in.Changed.After(best.Changed) || in.Changed.Equal(best.Changed) && newer(in.ResourceVersion, best.ResourceVersion) {
			best = in
		}
	}
	for app := range children {
		consider(app)
	}
	for _, app := range more {
		consider(app)
	}
	return best, best.Name != ""
}

// newer: resourceVersion a is newer than b (false when they do not compare).
func newer(a, b string) bool {
	c, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && c > 0
}

// Changed is app's newest status timestamp: its last comparison, its operation's start or
// end, its health's transition.
func Changed(app *v1alpha1.Application) time.Time {
	var out time.Time
	later := func(t *time.Time) {
		if t != nil && t.After(out) {
			out = *t
		}
	}
	st := app.Status
	if st.ReconciledAt != nil {
		later(&st.ReconciledAt.Time)
	}
	if op := st.OperationState; op != nil {
		later(&op.StartedAt.Time)
		if op.FinishedAt != nil {
			later(&op.FinishedAt.Time)
		}
	}
	if st.Health.LastTransitionTime != nil {
		later(&st.Health.LastTransitionTime.Time)
	}
	return out
}

// Tracker remembers, per rollout, the newest change its passes read.
type Tracker struct {
	mu   sync.Mutex
	last map[string]time.Time // rollout → the newest change time read
}

// Fresh reports whether in is a change later than any the rollout's passes read, and
// remembers it: a pass woken by a resync, by the agent's own write or by a change of
// something else than the Applications reads no new change and has no lag to count.
func (t *Tracker) Fresh(rollout string, in Input) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.last == nil {
		t.last = map[string]time.Time{}
	}
	if in.Changed.IsZero() || !in.Changed.After(t.last[rollout]) {
		return false
	}
	t.last[rollout] = in.Changed
	return true
}
