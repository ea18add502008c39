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

// Newest is the Application of children and more (nil ones skipped) with the highest
// resourceVersion; false when there is none, or a resourceVersion does not compare.
func Newest(children iter.Seq[*v1alpha1.Application], more ...*v1alpha1.Application) (Input, bool) {
	var best *v1alpha1.Application
	consider := func(app *v1alpha1.Application) bool {
		if app == nil {
			return true
		}
		if best == nil {
			best = app
			return true
		}
		c, err := resourceversion.CompareResourceVersion(app.ResourceVersion, best.ResourceVersion)
		if err != nil {
			return false
		}
		if c > 0 {
			best = app
		}
		return true
	}
	for app := range children {
		if !consider(app) {
			return Input{}, false
		}
	}
	for _, app := range more {
		if !consider(app) {
			return Input{}, false
		}
	}
	if best == nil {
		return Input{}, false
	}
	return Input{Name: best.Name, ResourceVersion: best.ResourceVersion, Changed: Changed(best)}, true
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
	last map[string]string // rollout → resourceVersion
}

// Fresh reports whether in is a change the rollout's passes have not read yet, and
// remembers it: a pass woken by a resync, or by a change of something else than the
// Applications, reads no new change and has no lag to count.
func (t *Tracker) Fresh(rollout string, in Input) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.last == nil {
		t.last = map[string]string{}
	}
	if t.last[rollout] == in.ResourceVersion {
		return false
	}
	t.last[rollout] = in.ResourceVersion
	return true
}
