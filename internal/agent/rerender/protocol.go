package rerender

import (
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// View is what the re-render protocol reads of a parent and of the agent's memory.
type View struct {
	PhaseGen int64 // the generation the parent's PHASE_GEN names
	PlanGen  int64 // the state generation the parent's last applied render saw (the plan)
	View     int64 // the state's last render-relevant generation
	// Compared and Synced are the generations of the parent's last comparison and of its
	// last sync; Busy: an operation of the parent is requested or running, of generation
	// BusyGen (0: unknown).
	Compared, Synced int64
	Busy             bool
	BusyGen          int64
	Automated        bool // the parent syncs itself
	SelfHeal         bool // … and heals drift (it may apply an older render it compared)
	OutOfSync        bool
	Asked            time.Time // when this agent last asked for the re-render (zero: not)
	// Before is the generation the parent's PHASE_GEN named before this agent last set it
	// to PhaseGen (-1: unknown — another agent, or someone else, set it).
	Before int64
}

// Decision is the protocol's decision for one pass.
type Decision struct {
	SetPhaseGen bool // point the parent's PHASE_GEN at the state generation
	AskAgain    bool // the render did not arrive in time: ask again (and hard-refresh)
	// Enact: apply the children the state moves now, with the bytes the parent's render of
	// View will hold — safe only when no render older than View can still be applied.
	Enact bool
	// Confirmed: the parent applied its render of View; removals and syncs may go.
	Confirmed bool
	Asked     time.Time // when the re-render counts as asked from now on (zero: forget)
	Requeue   time.Time // come back then at the latest (zero: on the next watch event)
}

// Decide is the re-render protocol, pure. The parent must name at least View in
// PHASE_GEN (that changes the repo-server's cache key: Argo CD re-renders at once); its
// render has arrived when the plan it applied says View; a render that does not arrive in
// confirmAfter is asked for again. A parent without automated sync waits for a person (the
// diff it shows is the preview), so nothing is applied for it.
//
// The agent applies moved children itself (Enact) only when the parent cannot apply a
// render older than View after it — it runs no operation, or one of View or later (which
// applies the same bytes) — and: it compared View (comparisons of one Application never
// overlap, so none older can still end), or — running nothing —
// without self-heal — when the only generation named since the one it synced last is
// the one the agent names now: a comparison still in flight is then of a generation it
// already synced, which automated sync never applies again.
func Decide(v View, now time.Time, confirmAfter time.Duration) Decision {
	var d Decision
	enact := func(before int64) bool {
		settled := !v.SelfHeal && before >= 0 && before <= v.Synced
		// an operation of the view or later applies the same bytes: no hazard
		hazard := v.Busy && v.BusyGen < v.View
		return v.Automated && !hazard && (v.Compared >= v.View || (settled && !v.Busy))
	}
	switch {
	case v.PhaseGen < v.View:
		d.SetPhaseGen, d.Asked, d.Requeue = true, now, now.Add(confirmAfter)
		d.Enact = enact(v.PhaseGen)
	case v.PlanGen >= v.View:
		d.Confirmed, d.Enact = true, enact(v.Before)
	case !v.Automated && v.OutOfSync:
		// a person's sync enacts it: that is the preview, not a lost re-render
		d.Asked, d.Requeue = v.Asked, now.Add(confirmAfter)
	default:
		d.Enact, d.Asked = enact(v.Before), v.Asked
		if d.Asked.IsZero() {
			d.Asked = now // a fresh agent counts from now
		}
		if !now.Before(d.Asked.Add(confirmAfter)) {
			d.AskAgain, d.Asked = true, now
		}
		d.Requeue = d.Asked.Add(confirmAfter)
	}
	return d
}

// Asked is what an agent remembers of a re-render it asked for, as the protocol reads it.
type Asked struct {
	At     time.Time // when (zero: not asked)
	Set    int64     // the PHASE_GEN it set
	Before int64     // … and the one the parent named before
}

// ViewOf reads the protocol's inputs off a parent (nil: missing, nothing is known) and
// what the agent remembers.
func ViewOf(parent *v1alpha1.Application, planGen, view int64, mem Asked) View {
	v := View{PlanGen: planGen, View: view, Asked: mem.At, Before: -1}
	if parent == nil {
		return v
	}
	v.PhaseGen = PhaseGen(parent)
	if mem.Set == v.PhaseGen && !mem.At.IsZero() {
		v.Before = mem.Before
	}
	st := parent.Status
	v.Compared = genOfSource(st.Sync.ComparedTo.Source)
	v.OutOfSync = st.Sync.Status == v1alpha1.SyncStatusCodeOutOfSync
	if op := st.OperationState; op != nil {
		v.Busy = !op.Phase.Completed()
		if op.SyncResult != nil {
			v.Synced = genOfSource(op.SyncResult.Source)
		}
		if v.Busy {
			v.BusyGen = operationGen(&op.Operation, op.SyncResult)
		}
	}
	if parent.Operation != nil {
		v.Busy, v.BusyGen = true, operationGen(parent.Operation, nil)
	}
	if sp := parent.Spec.SyncPolicy; sp != nil && sp.IsAutomatedSyncEnabled() {
		v.Automated, v.SelfHeal = true, sp.Automated.GetSelfHeal()
	}
	return v
}

// operationGen is the generation an operation renders: the source it names (automated
// sync names the one it compared) or its result's; 0 when it names none (it will render
// whatever the spec names when it starts: unknown).
func operationGen(op *v1alpha1.Operation, res *v1alpha1.SyncOperationResult) int64 {
	if op.Sync != nil && op.Sync.Source != nil {
		return genOfSource(*op.Sync.Source)
	}
	if res != nil {
		return genOfSource(res.Source)
	}
	return 0
}

// genOfSource is the generation a source's plugin env PHASE_GEN names, 0 when none.
func genOfSource(src v1alpha1.ApplicationSource) int64 {
	if src.Plugin == nil {
		return 0
	}
	for _, e := range src.Plugin.Env {
		if e.Name == contract.EnvPhaseGen {
			return ParseGeneration(e.Value)
		}
	}
	return 0
}
