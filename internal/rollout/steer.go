package rollout

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/control"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// EvControlApplied and EvControlRejected report a person's edits.
const (
	EvControlApplied  = "ControlApplied"
	EvControlRejected = "ControlRejected"
	EvPaused          = "Paused"
	EvResumed         = "Resumed"
)

// steer applies a person's edits of the ConfigMap once: each is recorded in the history
// with who made it, one-shot keys are consumed (ActConsume), and every edit it refuses is
// reported once (a Warning Event; the agent also shows it in the status key).
func steer(st *state.State, p plan.Plan, o Observed, now time.Time, acts *[]Action) {
	c := o.Controls
	if c == nil {
		return
	}
	problems := slices.Clone(c.Problems)
	reject := func(key, value, msg string, args ...any) {
		problems = append(problems, control.Problemf(key, value, msg, args...))
	}
	pause(st, c, now, acts, reject)
	r := st.Rollout
	if c.Abort != "" || c.Rollback != "" {
		endRollout(st, c, now, acts, reject)
	}
	if tracking(r, p) {
		trackEdits(st, p, c, now, acts, reject) // per track (tracks_steer.go)
	} else if r != nil && r.Status == StatusProgressing && r.Phase < len(r.Phases) && linedUp(r, p) {
		phaseEdits(r, p, c, now, acts, reject)
	}
	if c.Reject != "" && !tracking(r, p) {
		rejectGate(st, p, c, now, acts, reject)
	}
	skips(st, c, acts, now, reject)
	removeRollout(st, c, o.SpecGone, now, acts, reject)
	if w := c.OverrideWindow; w != "" && !knownWindow(p, o, w) {
		reject(contract.OverrideWindowKey, w, "no window %q over this rollout (fix: the window's name, as status shows it)", w)
	}
	report(st, problems, now, acts)
}

func consume(acts *[]Action, keys ...string) {
	for _, k := range keys {
		*acts = append(*acts, Action{Kind: ActConsume, Key: k})
	}
}

// who names the person behind an edit, with their reason when they gave one.
func who(c *control.Controls) string {
	if c.Reason != "" {
		return by(c.By) + fmt.Sprintf(" (%q)", c.Reason)
	}
	return by(c.By)
}

// pause starts, ends (resume, or pause-until passed) or keeps a pause.
func pause(st *state.State, c *control.Controls, now time.Time, acts *[]Action, reject func(string, string, string, ...any)) {
	if stopAll(st, c, now, acts, reject) {
		return
	}
	p := st.Paused
	switch {
	case c.Resume || (p != nil && c.Pause == "" && !checkHolds(st)):
		if p != nil {
			st.Paused = nil
			rerunInconclusive(st, p) // an Inconclusive check runs again from scratch
			emit(st.Rollout, acts, now, EvResumed, fmt.Sprintf("resumed by %s (paused since %s: %s)", who(c), p.Since.UTC().Format(time.RFC3339), p.Reason))
		}
		consume(acts, contract.ResumeKey, contract.PauseKey, contract.PauseUntilKey)
	case p != nil && p.Until != nil && !now.Before(*p.Until):
		st.Paused = nil
		emit(st.Rollout, acts, now, EvResumed, fmt.Sprintf("pause by %s ran out at %s: %s", p.By, p.Until.UTC().Format(time.RFC3339), p.Reason))
		consume(acts, contract.PauseKey, contract.PauseUntilKey)
	case c.Pause != "" && (p == nil || p.Reason != c.Pause || !sameTime(p.Until, c.PauseUntil)):
		if c.PauseUntil != nil && !c.PauseUntil.After(now) {
			reject(contract.PauseUntilKey, c.PauseUntil.UTC().Format(time.RFC3339), "expired (fix: a time in the future, or remove it to pause until resumed)")
		} else {
			st.Paused = &state.Pause{Reason: c.Pause, By: c.By, Since: now, Until: c.PauseUntil}
			emit(st.Rollout, acts, now, EvPaused, fmt.Sprintf("paused by %s: %s", who(c), c.Pause))
		}
	}
	holdFleet(st, c, now, acts)
	if p := st.Paused; p != nil && p.Until != nil {
		*acts = append(*acts, Action{Kind: ActRequeue, At: *p.Until, Message: "pause-until"})
	}
}

func sameTime(a, b *time.Time) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && a.Equal(*b))
}

// endRollout aborts (stops where it is) or rolls back the rollout; a rollback also works on
// a stopped rollout, and ends a pause, as a person asked the fleet to move.
func endRollout(st *state.State, c *control.Controls, now time.Time, acts *[]Action, reject func(string, string, string, ...any)) {
	r := st.Rollout
	key, why := contract.AbortKey, c.Abort
	if why == "" {
		key, why = contract.RollbackKey, c.Rollback
	}
	switch {
	case key == contract.RollbackKey && r != nil && (r.Status == StatusRollingBack || r.Status == StatusRolledBack):
		consume(acts, key) // already done
	case !r.Active() || (key == contract.AbortKey && r.Status.IsTerminal()):
		reject(key, why, "no rollout in progress (fix: remove it)")
	case key == contract.AbortKey:
		r.Status, r.Reason = StatusStopped, fmt.Sprintf("aborted by %s: %s", who(c), why)
		for _, i := range walkingPhases(r) {
			markFailed(&r.Phases[i], PhaseFailed, now)
		}
		emit(r, acts, now, EvRolloutAborted, r.Reason)
		consume(acts, key)
	case st.Deployed == "":
		reject(key, why, "a first deployment has nothing to roll back to (fix: abort instead)")
	default:
		r.Status, r.Reason = StatusRollingBack, fmt.Sprintf("rollback asked by %s: %s", who(c), why)
		for i := range r.Phases {
			if ph := &r.Phases[i]; len(ph.Returning) > 0 {
				// a rollback stopped at its progressDeadline: the phase returns again, with a new deadline
				ph.Status, ph.RollbackAt = PhaseReturning, &now
			}
		}
		if st.Paused != nil {
			st.Paused = nil
			consume(acts, contract.PauseKey, contract.PauseUntilKey)
		}
		emit(r, acts, now, EvRollingBack, "rolling back: "+r.Reason)
		consume(acts, key)
	}
}

// walkingPhases are the phases an abort stops: the current one, or with tracks, each
// still-walking track's (a track that completed or stopped keeps its phases as they are).
func walkingPhases(r *state.Rollout) []int {
	if len(r.Tracks) == 0 || r.Phase < r.Split() {
		return r.Current()
	}
	var out []int
	for _, t := range r.Tracks {
		if from, to := r.Span(t.Name); !t.Status.IsTerminal() && t.Phase >= from && t.Phase < to {
			out = append(out, t.Phase)
		}
	}
	return out
}

// phaseEdits applies approve, promote and jump to the running rollout.
func phaseEdits(r *state.Rollout, p plan.Plan, c *control.Controls, now time.Time, acts *[]Action, reject func(string, string, string, ...any)) {
	cur := &r.Phases[r.Phase]
	if c.Approve != "" {
		approve(r, p, c, now, acts, reject) // approvals.go
	}
	if c.Promote != "" {
		if c.Promote != cur.Name || cur.Status != PhaseSoaking {
			reject(contract.PromoteKey, c.Promote, "phase %s is not soaking; the rollout is at %s, %s (fix: remove it)", c.Promote, cur.Name, cur.Status)
		} else {
			cur.SoakUntil = &now
			emit(r, acts, now, EvControlApplied, fmt.Sprintf("phase %s promoted by %s: soak ended early", cur.Name, who(c)))
			consume(acts, contract.PromoteKey)
		}
	}
	if c.Jump != "" {
		jump(r, p, c, now, acts, reject)
	}
}

// jump moves the rollout ahead to a later phase; the phases between are marked succeeded by
// the jump (their members not admitted yet stay where they are). A phase still holding a
// manual gate stops it unless force.
func jump(r *state.Rollout, p plan.Plan, c *control.Controls, now time.Time, acts *[]Action, reject func(string, string, string, ...any)) {
	to := slices.IndexFunc(r.Phases, func(p state.PhaseState) bool { return p.Name == c.Jump })
	if to <= r.Phase {
		reject(contract.JumpKey, c.Jump, "jumps go forward only; the rollout is at %s (fix: rollback to go back)", r.Phases[r.Phase].Name)
		return
	}
	if k := r.Split(); to >= k {
		reject(contract.JumpKey, c.Jump, "phase %s is walked per track (the tracks split at %s); jumps do not cross the split (fix: jump to a phase before %s, or remove it)", c.Jump, r.Phases[k].Name, r.Phases[k].Name)
		return
	}
	for i := r.Phase; i < to; i++ {
		if ph := r.Phases[i]; spec.ApprovalOf(p.Phases[i]) != nil && ph.ApprovedBy == "" && !c.Force {
			reject(contract.JumpKey, c.Jump, "it passes the unfinished gate of phase %s (fix: approve %s first, or add force: \"true\")", ph.Name, ph.Name)
			return
		}
	}
	for i := r.Phase; i < to; i++ {
		r.Phases[i].Status = PhaseSucceeded
		emit(r, acts, now, EvPhaseSucceeded, fmt.Sprintf("phase %s skipped by a jump to %s", r.Phases[i].Name, c.Jump))
	}
	r.Phase = to
	emit(r, acts, now, EvControlApplied, fmt.Sprintf("jumped to phase %s by %s", c.Jump, who(c)))
	consume(acts, contract.JumpKey, contract.ForceKey)
}

// skips keeps the rollout's quarantine list equal to the skip key (children it knows). The
// names it does not know are one refusal, however many, so it is reported once per change.
func skips(st *state.State, c *control.Controls, acts *[]Action, now time.Time, reject func(string, string, string, ...any)) {
	r := st.Rollout
	if r == nil {
		return
	}
	members := memberSet(r)
	var valid, unknown []string
	for _, s := range c.Skip {
		if _, deployed := slices.BinarySearch(st.Children, s); deployed || members[s] {
			valid = append(valid, s)
		} else {
			unknown = append(unknown, s)
		}
	}
	if len(unknown) == 1 {
		reject(contract.SkipKey, unknown[0], "no child %s in this rollout (fix: use a child Application's name)", unknown[0])
	} else if len(unknown) > 1 {
		reject(contract.SkipKey, strings.Join(unknown, ","), "no children %s in this rollout (fix: use child Applications' names)", someOf(unknown))
	}
	if !slices.Equal(valid, r.Skipped) {
		r.Skipped = valid
		emit(r, acts, now, EvControlApplied, fmt.Sprintf("skipped children now %v (by %s)", valid, who(c)))
	}
}

// memberSet is every phase's members (in the snapshots' order, not sorted: arrange).
func memberSet(r *state.Rollout) map[string]bool {
	set := map[string]bool{}
	for _, ph := range r.Phases {
		for _, m := range ph.Members {
			set[m] = true
		}
	}
	return set
}

// someOf names the first three of names and how many more there are.
func someOf(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
}

// report emits a Warning for each refused edit not reported yet, and remembers them.
func report(st *state.State, problems []control.Problem, now time.Time, acts *[]Action) {
	seen := map[string]string{}
	var keys []string
	for _, p := range problems { // a key's problems are one report: the same on every pass
		if prev, ok := seen[p.Key]; ok {
			seen[p.Key] = prev + "; " + p.String()
		} else {
			seen[p.Key] = p.String()
			keys = append(keys, p.Key)
		}
	}
	for _, k := range keys {
		if old, ok := st.Rejected[k]; !ok || old != seen[k] {
			emit(st.Rollout, acts, now, EvControlRejected, "refused "+seen[k])
		}
	}
	if len(seen) == 0 {
		seen = nil
	}
	if !maps.Equal(seen, st.Rejected) {
		st.Rejected = seen
	}
}
