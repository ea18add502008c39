package hooks

import (
	"context"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// Kind is a hook kind whole: its spec half (spec.HookKind: the `type:` name, how its block
// is read and validated, its timeout limit, which fields are templated and so whether a
// check runs per cluster) and its run half below. Runner finds the kind by the hook's type.
type Kind interface {
	spec.HookKind
	// Reach says what a run of block (templated) reaches, for the agent's per-host cap and
	// its log.
	Reach(block spec.HookBlock) Reach
	// Run makes one attempt of c, whose hook is templated and of this kind, within ctx
	// (which ends at the hook's timeout) and r's limits. It says Succeeded, Failed (it ran
	// and said no) or Errored (it could not run or tell); Runner.Run redacts and caps the
	// message and sets the duration. Run may be called again with the same
	// c.IdempotencyKey (a retry, or a new agent taking over a run its ledger says is
	// Running): a kind whose work outlives the call must find that work again by the key
	// rather than start it twice.
	Run(ctx context.Context, r *Runner, c Call) Result
}

// Reach is what a hook run reaches.
type Reach struct {
	// Host is the host runs reach (an http hook's URL's), at most the agent's
	// --hooks-per-host of them at once; empty when a run reaches none.
	Host string
	// SkipsTLSVerify is true when the run does not verify TLS (insecureSkipVerify).
	SkipsTLSVerify bool
	// PerRequest is true for a run that takes one of the host's slots per request
	// (Call.Slot: a metric check's measurements), not for its whole length.
	PerRequest bool
}

// Register lets specs use kind k and the agent run it: one call registers both halves
// (its spec half with spec.RegisterHookKind). It is called while the program starts, from
// internal/hooks/all (or a test defining a kind of its own); a second kind of the same
// name panics there, before anything runs.
func Register(k Kind) { spec.RegisterHookKind(k) }

// kindOf is the kind the agent runs for a hook of type name: a registered kind with a
// run half.
func kindOf(name string) (Kind, bool) {
	sk, ok := spec.HookKindOf(name)
	if !ok {
		return nil, false
	}
	k, ok := sk.(Kind)
	return k, ok
}
