package rollout

// The I/O the engine asks for, as data. Types and constants only: a rule adds them with the
// pass's methods (pass.go).

import (
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// ActionKind is what the agent must do after writing the state.
type ActionKind string

// Actions.
const (
	ActRequeue ActionKind = "Requeue" // come back at At
	ActEvent   ActionKind = "Event"   // tell people (an Event on the parent)
	ActRunHook ActionKind = "RunHook" // make sure hook Key is running (start it unless it is)
	ActConsume ActionKind = "Consume" // remove control key Key from the ConfigMap (acted on)
	// ActSyncAgain: sync child Cluster again, admitted to Revision at Since: its last sync
	// failed on a transient error and its backoff is over (Retry; the agent re-checks it on
	// the live child before it starts the sync).
	ActSyncAgain ActionKind = "SyncAgain"
)

// Action is one piece of I/O the engine asks for.
type Action struct {
	Kind ActionKind
	// At is when to come back (ActRequeue), or when a check measured through the soak
	// stops measuring, the soak's end (ActRunHook; zero for every other run).
	At      time.Time
	Reason  string // ActEvent: the Kubernetes Event's reason (an Ev* constant)
	Message string // ActEvent: the Event's message; ActRequeue: why
	Warning bool   // ActEvent: a Warning, not a Normal Event
	// ActRunHook: the ledger key, the hook as declared, the child of a per-cluster run (a
	// hook templated with a cluster field) and its cluster's name in the inventory (for the
	// template variables: the child may not exist yet for a pre-hook), and the phase index.
	// ActConsume: the control key in Key.
	Key         string
	Hook        spec.Hook
	Cluster     string
	ClusterName string
	Phase       int
	// ActRunHook: the track whose phase runs the hook ("" for a phase before any split).
	Track string
	// ActSyncAgain: the revision the child was admitted to (or returns to) and when.
	Revision string
	Since    time.Time
}
