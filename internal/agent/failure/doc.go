// Package failure is what a failed reconcile of the agent means for what it does next. An
// error has a kind (Kind): transient, conflict, invalid input, or fail closed; one mapper,
// PolicyOf, turns it into when the rollout comes back, the Warning Event its parent gets (or
// none) and the level of the one line it is logged with. The constructors (InvalidInput,
// Closed, WriteFailed) mark an error with its kind; an error of no kind is its API error's.
package failure
