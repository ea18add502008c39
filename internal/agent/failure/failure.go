package failure

import (
	"errors"
	"log/slog"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Kind is what a failed reconcile means for what the agent does next. As with Flux's
// reconcile errors, the kind decides the retry, whether people are told, and how loudly it
// is logged (PolicyOf).
type Kind string

// The kinds of failure.
const (
	// Transient: the API server was unavailable, slow or throttling, or the agent is not
	// ready yet; the same reconcile will likely pass later. Every error of no other kind is
	// transient, as every error was before kinds.
	Transient Kind = "Transient"
	// Conflict: a concurrent change won a write; the next pass decides on what is there now.
	Conflict Kind = "Conflict"
	// Invalid: an input the agent cannot use — a plan, state or parent — until a person or
	// the renderer fixes it.
	Invalid Kind = "Invalid"
	// FailClosed: the renderer or the engine refused to go on; nothing more is done for the
	// rollout until its inputs change.
	FailClosed Kind = "FailClosed"
)

// The reasons of the Warning Events failures publish on the rollout's parent.
const (
	EventStateWriteFailed = "StateWriteFailed" // a state write reached the API server and failed
	EventInvalidInput     = "InvalidInput"
	EventFailedClosed     = "FailedClosed"
)

// Requeue is when a failed key comes back.
type Requeue string

// When failed keys come back; every watch event of the rollout's objects brings it back
// too.
const (
	Backoff Requeue = "Backoff" // the work queue's rate limiter: per key, 5 ms doubling up to 1000 s
	Soon    Requeue = "Soon"    // after RetrySoon
	Slowly  Requeue = "Slowly"  // after RetrySlowly: no hot loop on an input a person must fix
	Never   Requeue = "Never"   // only on a watch event: an input changed
)

// How long Soon and Slowly wait.
const (
	RetrySoon   = time.Second
	RetrySlowly = time.Minute
)

// Policy is what the agent does about a failed reconcile: when it comes back, the Warning
// Event it publishes on the rollout's parent ("": none), and the level of its one log line.
type Policy struct {
	Kind    Kind
	Requeue Requeue
	Event   string
	Level   slog.Level
}

// PolicyOf is the one mapper from a failed reconcile's error to what the agent does.
func PolicyOf(err error) Policy {
	kind, event := kindOf(err)
	switch kind {
	case Conflict:
		return Policy{Kind: Conflict, Requeue: Soon, Level: slog.LevelInfo}
	case Invalid:
		return Policy{Kind: Invalid, Requeue: Slowly, Event: or(event, EventInvalidInput), Level: slog.LevelWarn}
	case FailClosed:
		return Policy{Kind: FailClosed, Requeue: Never, Event: or(event, EventFailedClosed), Level: slog.LevelError}
	}
	return Policy{Kind: Transient, Requeue: Backoff, Event: event, Level: slog.LevelWarn}
}

// failure is an error that knows its kind (empty: the kind of the API error it wraps) and
// the Event reason it publishes ("": its kind's).
type failure struct {
	kind  Kind
	event string
	err   error
}

func (f *failure) Error() string { return f.err.Error() }
func (f *failure) Unwrap() error { return f.err }

// InvalidInput is an input the agent cannot use; err names the object, fix says what to do.
func InvalidInput(err error, fix string) error {
	return &failure{kind: Invalid, err: withFix(err, fix)}
}

// Closed is the renderer's or the engine's refusal.
func Closed(err error) error { return &failure{kind: FailClosed, err: err} }

// WriteFailed is a state write the API server refused: people hear of it, and it is
// retried as its API error says.
func WriteFailed(err error) error { return &failure{event: EventStateWriteFailed, err: err} }

// kindOf is an error's kind and Event reason: a failure's own, else its API error's.
func kindOf(err error) (Kind, string) {
	var f *failure
	if errors.As(err, &f) && f.kind != "" {
		return f.kind, f.event
	}
	event := ""
	if f != nil {
		event = f.event
	}
	if apierrors.IsConflict(err) {
		return Conflict, event
	}
	return Transient, event
}

// withFix adds the fix to an error that does not say one.
func withFix(err error, fix string) error {
	if fix == "" || strings.Contains(err.Error(), "(fix:") {
		return err
	}
	return &fixed{err: err, fix: fix}
}

type fixed struct {
	err error
	fix string
}

func (f *fixed) Error() string { return f.err.Error() + " (fix: " + f.fix + ")" }
func (f *fixed) Unwrap() error { return f.err }

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
