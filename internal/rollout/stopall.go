package rollout

import (
	"fmt"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/control"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// stopAll applies the fleet-wide stop: while it is on, it pauses the rollout (recorded in
// its history and published on its parent), unless a person's own pause holds it already;
// once lifted, it ends its own pause and only that. It reports whether it decided the pause
// (so a person's keys wait), which it does while the stop is on and no person pauses.
func (ps *pass) stopAll(c *control.Controls) bool {
	st := ps.st
	p := st.Paused
	switch {
	case c.Fleet != nil && c.Pause == "":
		if c.Resume {
			ps.reject(contract.ResumeKey, "", "the fleet-wide stop holds every rollout (fix: cmp-phase resume-all lifts it)")
		}
		if p != nil && !p.Fleet {
			st.Paused = nil // the person's pause key is gone: the stop holds it now
		}
		ps.holdFleet(c)
		return true
	case c.Fleet == nil && p != nil && p.Fleet:
		st.Paused = nil
		ps.emit(st.Rollout, EvResumed, fmt.Sprintf("the fleet-wide stop was lifted (stopped since %s: %s)", p.Since.UTC().Format(time.RFC3339), p.Reason))
	}
	return false
}

// holdFleet pauses an unpaused rollout while the fleet-wide stop is on — also when a
// person's pause ended on this pass (pause-until passed, resume) — but for a rollback, a
// person's or onFailure's: returning clusters to what they ran is how an incident is mended.
func (ps *pass) holdFleet(c *control.Controls) {
	st, now := ps.st, ps.now
	if c.Fleet == nil || st.Paused != nil || (st.Rollout != nil && st.Rollout.Status == StatusRollingBack) {
		return
	}
	st.Paused = &state.Pause{Reason: c.Fleet.Reason, By: c.Fleet.By, Since: now, Fleet: true}
	ps.emit(st.Rollout, EvPaused, fmt.Sprintf("paused by the fleet-wide stop of %s: %s", by(c.Fleet.By), c.Fleet.Reason))
}

// by names a person from a by key.
func by(who string) string {
	if who == "" {
		return "someone (no by key)"
	}
	return who
}
