package steer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/control"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/statestore"
)

// Store is the read-modify-write of a rollout's state ConfigMap (state.Store is one): it
// decides again on a concurrent change, so that change is never lost.
type Store interface {
	UpdateCM(ctx context.Context, decide statestore.DecideCM) (next *state.State, wrote bool, err error)
}

// Rollout is a rollout to steer: the store of its state ConfigMap, the phases of its plan
// (what approve, promote and jump may name), and who steers it and why (recorded in its
// history with the edit).
type Rollout struct {
	Name   string
	Store  Store
	Phases []string
	By     string
	Reason string
	// Approver is who approves or rejects, as the API server authenticated them (nil: none
	// recorded; the agent then takes By, as for a hand edit).
	Approver *Identity
	Now      func() time.Time // nil: time.Now
}

// Refused is an edit refused before anything was written: the agent would refuse it too.
type Refused struct{ Problem control.Problem }

func (r *Refused) Error() string { return "refused: " + r.Problem.String() }

// Pause holds the rollout; until ("" for none) is the RFC 3339 time the pause ends by itself.
func (r Rollout) Pause(ctx context.Context, until string) error {
	e := map[string]*string{contract.PauseKey: &r.Reason, contract.PauseUntilKey: nil}
	if until != "" {
		e[contract.PauseUntilKey] = &until
	}
	return r.edit(ctx, fixed(e))
}

// Resume ends a pause.
func (r Rollout) Resume(ctx context.Context) error { return r.edit(ctx, r.because(contract.ResumeKey)) }

// Abort stops the rollout where it is.
func (r Rollout) Abort(ctx context.Context) error { return r.edit(ctx, r.because(contract.AbortKey)) }

// Rollback returns the admitted clusters to what they ran before.
func (r Rollout) Rollback(ctx context.Context) error {
	return r.edit(ctx, r.because(contract.RollbackKey))
}

// Promote ends phase's soak now.
func (r Rollout) Promote(ctx context.Context, phase string) error {
	return r.edit(ctx, fixed(map[string]*string{contract.PromoteKey: &phase}))
}

// Jump moves ahead to phase; force passes unapproved gates on the way.
func (r Rollout) Jump(ctx context.Context, phase string, force bool) error {
	e := map[string]*string{contract.JumpKey: &phase, contract.ForceKey: nil}
	if force {
		e[contract.ForceKey] = new("true")
	}
	return r.edit(ctx, fixed(e))
}

// Skip quarantines children, on top of those already skipped.
func (r Rollout) Skip(ctx context.Context, children ...string) error {
	return r.edit(ctx, skipping(children, true))
}

// Unskip ends the quarantine of children.
func (r Rollout) Unskip(ctx context.Context, children ...string) error {
	return r.edit(ctx, skipping(children, false))
}

// ConfirmRemoval confirms the removal of the leaving children named ("all": every one).
func (r Rollout) ConfirmRemoval(ctx context.Context, children ...string) error {
	return r.edit(ctx, fixed(map[string]*string{contract.ConfirmRemovalKey: new(strings.Join(children, ","))}))
}

// ConfirmRemoveRollout confirms that the rollout, whose spec is gone from git, goes: revision
// is the deployed revision the parent's ComparisonError names.
func (r Rollout) ConfirmRemoveRollout(ctx context.Context, revision string) error {
	return r.edit(ctx, fixed(map[string]*string{contract.ConfirmRemoveRolloutKey: new(revision)}))
}

// OverrideWindow lets the held phase's next admission through the window named, once.
func (r Rollout) OverrideWindow(ctx context.Context, window string) error {
	return r.edit(ctx, fixed(map[string]*string{contract.OverrideWindowKey: new(window)}))
}

// change is what an edit sets (a value) or removes (nil), given the data it edits.
type change func(data map[string]string) map[string]*string

func fixed(e map[string]*string) change {
	return func(map[string]string) map[string]*string { return e }
}

// because sets key to the reason.
func (r Rollout) because(key string) change {
	return fixed(map[string]*string{key: &r.Reason})
}

// skipping adds children to the skip list (on) or takes them off it.
func skipping(children []string, on bool) change {
	return func(data map[string]string) map[string]*string {
		list := control.SkipList(data[contract.SkipKey])
		for _, c := range children {
			if list = slices.DeleteFunc(list, func(s string) bool { return s == c }); on {
				list = append(list, c)
			}
		}
		if len(list) == 0 {
			return map[string]*string{contract.SkipKey: nil}
		}
		slices.Sort(list)
		return map[string]*string{contract.SkipKey: new(strings.Join(list, ","))}
	}
}

// edit writes the change, with who and why, once the ConfigMap it makes passes control.Parse as the
// agent will read it; a concurrent change is read again and the change made on top of it.
// A refused edit writes nothing and returns *Refused.
func (r Rollout) edit(ctx context.Context, ch change) error {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	_, _, err := r.Store.UpdateCM(ctx, func(data map[string]string, cur *state.State) (statestore.Edit, error) {
		if cur == nil && data == nil {
			return statestore.Edit{}, fmt.Errorf("rollout %s: no state yet (fix: wait for the agent to start its first rollout)", r.Name)
		}
		e := ch(data)
		if _, answer := e[contract.ApproverKey]; answer {
			if refused := pendingAnswer(data); refused != nil {
				return statestore.Edit{}, refused
			}
		}
		e[contract.ByKey], e[contract.ReasonKey] = &r.By, &r.Reason
		if c := control.Parse(applied(data, e), r.Phases, now()); len(c.Problems) > 0 {
			return statestore.Edit{}, &Refused{Problem: c.Problems[0]}
		}
		return statestore.Edit{Next: cur, Data: e}, nil
	})
	if refused := (*Refused)(nil); errors.As(err, &refused) {
		return refused
	}
	return err
}

// applied is data with the edit made.
func applied(data map[string]string, e map[string]*string) map[string]string {
	out := maps.Clone(data)
	if out == nil {
		out = map[string]string{}
	}
	for k, v := range e {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = *v
		}
	}
	return out
}
