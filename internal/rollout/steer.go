package rollout

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/control"
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
func (ps *pass) steer() {
	st, p, o := ps.st, ps.p, ps.o
	c := o.Controls
	if c == nil {
		return
	}
	ps.problems = slices.Clone(c.Problems)
	ps.pause(c)
	r := st.Rollout
	if c.Abort != "" || c.Rollback != "" {
		ps.endRollout(c)
	}
	if tracking(r, p) {
		ps.trackEdits(c) // per track (tracks_steer.go)
	} else if r != nil && r.Status == StatusProgressing && r.Phase < len(r.Phases) && linedUp(r, p) {
		ps.phaseEdits(c)
	}
	if c.Reject != "" && !tracking(r, p) {
		ps.rejectGate(c)
	}
	ps.skips(c)
	ps.removeRollout(c)
	if w := c.OverrideWindow; w != "" && !knownWindow(p, o, w) {
		ps.reject(contract.OverrideWindowKey, w, "no window %q over this rollout (fix: the window's name, as status shows it)", w)
	}
	ps.report()
}

// who names the person behind an edit, with their reason when they gave one.
func who(c *control.Controls) string {
	if c.Reason != "" {
		return by(c.By) + fmt.Sprintf(" (%q)", c.Reason)
	}
	return by(c.By)
}

// pause starts, ends (resume, or pause-until passed) or keeps a pause.
func (ps *pass) pause(c *control.Controls) {
	st, now := ps.st, ps.now
	if ps.stopAll(c) {
		return
	}
	p := st.Paused
	switch {
	case c.Resume || (p != nil && c.Pause == "" && !checkHolds(st)):
		ps.resume(c, p)
	case p != nil && p.Until != nil && !now.Before(*p.Until):
		st.Paused = nil
		ps.emit(st.Rollout, EvResumed, fmt.Sprintf("pause by %s ran out at %s: %s", p.By, p.Until.UTC().Format(time.RFC3339), p.Reason))
		ps.consume(contract.PauseKey, contract.PauseUntilKey)
	case newPause(p, c):
		ps.startPause(c)
	}
	ps.holdFleet(c)
	if p := st.Paused; p != nil && p.Until != nil {
		ps.requeue(*p.Until, "pause-until")
	}
}

// resume ends pause p (nil: none) as a person asked (resume, or the pause key removed).
func (ps *pass) resume(c *control.Controls, p *state.Pause) {
	if st := ps.st; p != nil {
		st.Paused = nil
		rerunInconclusive(st, p) // an Inconclusive check runs again from scratch
		ps.emit(st.Rollout, EvResumed, fmt.Sprintf("resumed by %s (paused since %s: %s)", who(c), p.Since.UTC().Format(time.RFC3339), p.Reason))
	}
	ps.consume(contract.ResumeKey, contract.PauseKey, contract.PauseUntilKey)
}

// newPause reports whether the pause key asks for a pause other than p (nil: none).
func newPause(p *state.Pause, c *control.Controls) bool {
	return c.Pause != "" && (p == nil || p.Reason != c.Pause || !sameTime(p.Until, c.PauseUntil))
}

// startPause pauses as the pause key asks, until pause-until when given; one already past
// is refused.
func (ps *pass) startPause(c *control.Controls) {
	now := ps.now
	if c.PauseUntil != nil && !c.PauseUntil.After(now) {
		ps.reject(contract.PauseUntilKey, c.PauseUntil.UTC().Format(time.RFC3339), "expired (fix: a time in the future, or remove it to pause until resumed)")
		return
	}
	ps.st.Paused = &state.Pause{Reason: c.Pause, By: c.By, Since: now, Until: c.PauseUntil}
	ps.emit(ps.st.Rollout, EvPaused, fmt.Sprintf("paused by %s: %s", who(c), c.Pause))
}

func sameTime(a, b *time.Time) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && a.Equal(*b))
}

// endRollout aborts (stops where it is) or rolls back the rollout; a rollback also works on
// a stopped rollout, and ends a pause, as a person asked the fleet to move.
func (ps *pass) endRollout(c *control.Controls) {
	st, now := ps.st, ps.now
	r := st.Rollout
	key, why := contract.AbortKey, c.Abort
	if why == "" {
		key, why = contract.RollbackKey, c.Rollback
	}
	switch {
	case key == contract.RollbackKey && r != nil && (r.Status == StatusRollingBack || r.Status == StatusRolledBack):
		ps.consume(key) // already done
	case !r.Active() || (key == contract.AbortKey && r.Status.IsTerminal()):
		ps.reject(key, why, "no rollout in progress (fix: remove it)")
	case key == contract.AbortKey:
		r.Status, r.Reason = StatusStopped, fmt.Sprintf("aborted by %s: %s", who(c), why)
		for _, i := range walkingPhases(r) {
			markFailed(&r.Phases[i], PhaseFailed, now)
		}
		ps.emit(r, EvRolloutAborted, r.Reason)
		ps.consume(key)
	case st.Deployed == "":
		ps.reject(key, why, "a first deployment has nothing to roll back to (fix: abort instead)")
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
			ps.consume(contract.PauseKey, contract.PauseUntilKey)
		}
		ps.emit(r, EvRollingBack, "rolling back: "+r.Reason)
		ps.consume(key)
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
func (ps *pass) phaseEdits(c *control.Controls) {
	r, now := ps.st.Rollout, ps.now
	cur := &r.Phases[r.Phase]
	if c.Approve != "" {
		ps.approve(c) // approvals.go
	}
	if c.Promote != "" {
		if c.Promote != cur.Name || cur.Status != PhaseSoaking {
			ps.reject(contract.PromoteKey, c.Promote, "phase %s is not soaking; the rollout is at %s, %s (fix: remove it)", c.Promote, cur.Name, cur.Status)
		} else {
			cur.SoakUntil = &now
			ps.emit(r, EvControlApplied, fmt.Sprintf("phase %s promoted by %s: soak ended early", cur.Name, who(c)))
			ps.consume(contract.PromoteKey)
		}
	}
	if c.Jump != "" {
		ps.jump(c)
	}
}

// jump moves the rollout ahead to a later phase; the phases between are marked succeeded by
// the jump (their members not admitted yet stay where they are). A phase still holding a
// manual gate stops it unless force.
func (ps *pass) jump(c *control.Controls) {
	r, p := ps.st.Rollout, ps.p
	to := slices.IndexFunc(r.Phases, func(p state.PhaseState) bool { return p.Name == c.Jump })
	if to <= r.Phase {
		ps.reject(contract.JumpKey, c.Jump, "jumps go forward only; the rollout is at %s (fix: rollback to go back)", r.Phases[r.Phase].Name)
		return
	}
	if k := r.Split(); to >= k {
		ps.reject(contract.JumpKey, c.Jump, "phase %s is walked per track (the tracks split at %s); jumps do not cross the split (fix: jump to a phase before %s, or remove it)", c.Jump, r.Phases[k].Name, r.Phases[k].Name)
		return
	}
	for i := r.Phase; i < to; i++ {
		if ph := r.Phases[i]; spec.ApprovalOf(p.Phases[i]) != nil && ph.ApprovedBy == "" && !c.Force {
			ps.reject(contract.JumpKey, c.Jump, "it passes the unfinished gate of phase %s (fix: approve %s first, or add force: \"true\")", ph.Name, ph.Name)
			return
		}
	}
	for i := r.Phase; i < to; i++ {
		r.Phases[i].Status = PhaseSucceeded
		ps.emit(r, EvPhaseSucceeded, fmt.Sprintf("phase %s skipped by a jump to %s", r.Phases[i].Name, c.Jump))
	}
	r.Phase = to
	ps.emit(r, EvControlApplied, fmt.Sprintf("jumped to phase %s by %s", c.Jump, who(c)))
	ps.consume(contract.JumpKey, contract.ForceKey)
}

// skips keeps the rollout's quarantine list equal to the skip key (children it knows). The
// names it does not know are one refusal, however many, so it is reported once per change.
func (ps *pass) skips(c *control.Controls) {
	st := ps.st
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
		ps.reject(contract.SkipKey, unknown[0], "no child %s in this rollout (fix: use a child Application's name)", unknown[0])
	} else if len(unknown) > 1 {
		ps.reject(contract.SkipKey, strings.Join(unknown, ","), "no children %s in this rollout (fix: use child Applications' names)", someOf(unknown))
	}
	if !slices.Equal(valid, r.Skipped) {
		r.Skipped = valid
		ps.emit(r, EvControlApplied, fmt.Sprintf("skipped children now %v (by %s)", valid, who(c)))
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
func (ps *pass) report() {
	st := ps.st
	seen := map[string]string{}
	var keys []string
	for _, p := range ps.problems { // a key's problems are one report: the same on every pass
		if prev, ok := seen[p.Key]; ok {
			seen[p.Key] = prev + "; " + p.String()
		} else {
			seen[p.Key] = p.String()
			keys = append(keys, p.Key)
		}
	}
	for _, k := range keys {
		if old, ok := st.Rejected[k]; !ok || old != seen[k] {
			ps.emit(st.Rollout, EvControlRejected, "refused "+seen[k])
		}
	}
	if len(seen) == 0 {
		seen = nil
	}
	if !maps.Equal(seen, st.Rejected) {
		st.Rejected = seen
	}
}
