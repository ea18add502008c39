package control

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// editable are the keys a person may write; agentKeys are the agent's own.
var (
	editable = []string{contract.PauseKey, contract.PauseUntilKey, contract.ResumeKey, contract.ApproveKey,
		contract.PromoteKey, contract.JumpKey, contract.ForceKey, contract.AbortKey, contract.RollbackKey,
		contract.SkipKey, contract.ConfirmRemovalKey, contract.ConfirmRemoveRolloutKey, contract.ByKey, contract.ReasonKey,
		contract.RejectKey, contract.ApproverKey, contract.ApproverGroupsKey,
		contract.OverrideWindowKey}
	agentKeys = []string{contract.StatusKey, contract.GenerationKey} // the generation beside the state itself
)

// OneShot are the keys the agent removes once it acted on them.
var OneShot = []string{contract.ResumeKey, contract.ApproveKey, contract.PromoteKey, contract.JumpKey,
	contract.ForceKey, contract.AbortKey, contract.RollbackKey, contract.ConfirmRemovalKey, contract.ConfirmRemoveRolloutKey,
	contract.RejectKey, contract.ApproverKey, contract.ApproverGroupsKey,
	contract.OverrideWindowKey}

// Controls are the valid edits found.
type Controls struct {
	Pause      string     // reason; "" when not paused
	PauseUntil *time.Time // nil: until resumed
	Resume     bool
	Approve    string
	Promote    string
	Jump       string
	Force      bool
	Abort      string
	Rollback   string
	Skip       []string
	// ConfirmRemoval names the children whose removal a person confirms ("all": every one
	// waiting).
	ConfirmRemoval []string
	// ConfirmRemoveRollout is the deployed revision whose rollout a person removes (its
	// spec is gone from git).
	ConfirmRemoveRollout string
	By                   string
	Reason               string
	// Reject is the phase whose approval gate a person refuses (Reason says why).
	Reject string
	// Approver and ApproverGroups are who approves or rejects, as written (without an
	// approver, By with no groups).
	Approver       string
	ApproverGroups []string
	Problems       []Problem
	// Fleet is the fleet-wide stop, when one is on: not a key of this ConfigMap, the agent
	// reads it from its fleet ConfigMap (ParseFleet).
	Fleet *FleetStop
	// OverrideWindow names the change window a person lets the held phase's next
	// admission through once.
	OverrideWindow string
}

// Problem is an edit the agent refuses, with what to do about it.
type Problem struct {
	Key     string
	Value   string
	Message string
}

func (p Problem) String() string { return fmt.Sprintf("%s=%q: %s", p.Key, p.Value, p.Message) }

// MaxReason bounds, in bytes, what a person writes as a reason or a name (pause, abort,
// rollback, reason, by, approver, approver-groups): the engine copies these into the
// rollout's state, its history and Events, all in one ConfigMap of at most 1 MiB.
const MaxReason = 1024

// maxProblemValue bounds the value a Problem quotes: the agent keeps every refused edit in
// the state, so a huge refused value must not make the state too big to write.
const maxProblemValue = 128

// clip cuts v to at most n bytes on a rune boundary.
func clip(v string, n int) string {
	if len(v) <= n {
		return v
	}
	for n > 0 && !utf8.RuneStart(v[n]) {
		n--
	}
	return v[:n]
}

// Problemf is a Problem whose value, and every string it quotes in its message, is cut to
// maxProblemValue bytes (and says its length): a refused edit is kept in the state and told
// in Events, so whatever a person wrote, the refusal stays small. Every Problem is made here.
func Problemf(key, value, format string, args ...any) Problem {
	args = slices.Clone(args)
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = shortened(s)
		}
	}
	return Problem{Key: key, Value: shortened(value), Message: fmt.Sprintf(format, args...)}
}

// shortened is v cut to maxProblemValue bytes, with its length said when it was cut.
func shortened(v string) string {
	if len(v) <= maxProblemValue {
		return v
	}
	return clip(v, maxProblemValue) + fmt.Sprintf("… (%d bytes)", len(v))
}

// Parse reads the steering keys of data against the plan's phase names, at now.
func Parse(data map[string]string, phases []string, now time.Time) Controls {
	var c Controls
	bad := func(k, msg string, args ...any) {
		c.Problems = append(c.Problems, Problemf(k, data[k], msg, args...))
	}
	data = withoutTooLong(data, bad)
	c.By, c.Reason = strings.TrimSpace(data[contract.ByKey]), strings.TrimSpace(data[contract.ReasonKey])
	unknownKeys(data, bad)
	c.pause(data, now, bad)
	_, c.Resume = data[contract.ResumeKey]
	c.Approve = phase(data, contract.ApproveKey, phases, bad)
	c.Promote = phase(data, contract.PromoteKey, phases, bad)
	c.Jump = phase(data, contract.JumpKey, phases, bad)
	c.force(data, bad)
	c.stops(data, bad)
	c.Skip = SkipList(data[contract.SkipKey])
	c.removals(data, bad)
	c.approvals(data, phases, bad)
	if v, ok := data[contract.OverrideWindowKey]; ok {
		if c.OverrideWindow = strings.TrimSpace(v); c.OverrideWindow == "" {
			bad(contract.OverrideWindowKey, "names no window (fix: the window's name, as status shows it)")
		}
	}
	return c
}

// tooLong tells whether v, key k's value, is over MaxReason, and refuses it when it is; then
// says what becomes of the edit.
func tooLong(k, v, then string, bad func(string, string, ...any)) bool {
	if len(v) <= MaxReason {
		return false
	}
	bad(k, "is %d bytes, over the limit of %d%s (fix: shorten it to at most %d bytes)", len(v), MaxReason, then, MaxReason)
	return true
}

// withoutTooLong is data less the names and reasons over MaxReason (by, reason, approver,
// approver-groups), each refused: the edit goes on without them.
func withoutTooLong(data map[string]string, bad func(string, string, ...any)) map[string]string {
	for _, k := range []string{contract.ByKey, contract.ReasonKey, contract.ApproverKey, contract.ApproverGroupsKey} {
		if tooLong(k, strings.TrimSpace(data[k]), "; refused, the edit goes on without it", bad) {
			data = withoutKey(data, k)
		}
	}
	return data
}

// unknownKeys refuses every key of data that is neither a person's nor the agent's.
func unknownKeys(data map[string]string, bad func(string, string, ...any)) {
	for _, k := range sortedKeys(data) {
		if !slices.Contains(editable, k) && !slices.Contains(agentKeys, k) {
			bad(k, "unknown key (fix: remove it; the keys are %s)", strings.Join(editable, ", "))
		}
	}
}

// pause reads pause and pause-until: a pause reason over MaxReason is cut, not refused, and
// pause-until goes with a pause.
func (c *Controls) pause(data map[string]string, now time.Time, bad func(string, string, ...any)) {
	c.Pause = reason(data, contract.PauseKey, bad)
	if tooLong(contract.PauseKey, c.Pause, "; the pause holds, with the reason cut there", bad) {
		c.Pause = clip(c.Pause, MaxReason) // refusing it would resume a paused rollout
	}
	if v, ok := data[contract.PauseUntilKey]; ok {
		c.PauseUntil = until(v, now, bad)
		if c.Pause == "" && c.PauseUntil != nil {
			bad(contract.PauseUntilKey, "pause-until without pause (fix: also set pause to the reason)")
		}
	}
}

// force reads force, which is "true" or "false" and goes with jump.
func (c *Controls) force(data map[string]string, bad func(string, string, ...any)) {
	v, ok := data[contract.ForceKey]
	if !ok {
		return
	}
	c.Force = strings.TrimSpace(v) == "true"
	if v := strings.TrimSpace(v); v != "true" && v != "false" {
		bad(contract.ForceKey, `must be "true" or "false"`)
	} else if c.Jump == "" {
		bad(contract.ForceKey, "force only goes with jump (fix: remove it, or set jump)")
	}
}

// stops reads abort and rollback, of which one at most: an abort reason over MaxReason is
// cut, a rollback's refuses the rollback.
func (c *Controls) stops(data map[string]string, bad func(string, string, ...any)) {
	c.Abort = reason(data, contract.AbortKey, bad)
	if tooLong(contract.AbortKey, c.Abort, "; the abort goes ahead, with the reason cut there", bad) {
		c.Abort = clip(c.Abort, MaxReason) // stopping is the safe direction
	}
	c.Rollback = reason(data, contract.RollbackKey, bad)
	if tooLong(contract.RollbackKey, c.Rollback, "; refused, nothing rolls back", bad) {
		c.Rollback = "" // a rollback moves the fleet: only as asked in full
	}
	if c.Abort != "" && c.Rollback != "" {
		bad(contract.RollbackKey, "abort and rollback at once (fix: keep one)")
		c.Rollback = ""
	}
}

// removals reads confirm-removal and confirm-remove-rollout, each of which names something.
func (c *Controls) removals(data map[string]string, bad func(string, string, ...any)) {
	if v, ok := data[contract.ConfirmRemovalKey]; ok {
		if c.ConfirmRemoval = SkipList(v); len(c.ConfirmRemoval) == 0 {
			bad(contract.ConfirmRemovalKey, `names no child (fix: "all", or the children, comma-separated)`)
		}
	}
	if v, ok := data[contract.ConfirmRemoveRolloutKey]; ok {
		if c.ConfirmRemoveRollout = strings.TrimSpace(v); c.ConfirmRemoveRollout == "" {
			bad(contract.ConfirmRemoveRolloutKey, "names no revision (fix: the deployed revision the parent's ComparisonError names)")
		}
	}
}

// withoutKey is data less k, data itself untouched.
func withoutKey(data map[string]string, k string) map[string]string {
	out := maps.Clone(data)
	delete(out, k)
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// reason reads a key whose value says why; present but empty is an error.
func reason(data map[string]string, k string, bad func(string, string, ...any)) string {
	v, ok := data[k]
	if !ok {
		return ""
	}
	if v = strings.TrimSpace(v); v == "" {
		bad(k, "needs a reason (fix: write why, e.g. %s: \"error rate up in prod\")", k)
	}
	return v
}

// until reads pause-until. Whether it has passed is the engine's to judge: a pause that ran
// out is over, a new pause that starts out expired is refused.
func until(v string, now time.Time, bad func(string, string, ...any)) *time.Time {
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(v))
	if err != nil {
		bad(contract.PauseUntilKey, "not an RFC 3339 time (fix: e.g. %s)", now.Add(time.Hour).UTC().Format(time.RFC3339))
		return nil
	}
	return &t
}

func phase(data map[string]string, k string, phases []string, bad func(string, string, ...any)) string {
	v, ok := data[k]
	if !ok {
		return ""
	}
	if v = strings.TrimSpace(v); !slices.Contains(phases, v) {
		bad(k, "no phase %q (fix: one of %s)", v, strings.Join(phases, ", "))
		return ""
	}
	return v
}

// SkipList reads a comma-separated list of names (skip, confirm-removal, approver-groups):
// trimmed, sorted, each once. Linear but for the sort: a list of 80,000 names took 14.9 s
// when each was searched for in the names before it.
func SkipList(v string) []string {
	var out []string
	for s := range strings.SplitSeq(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
