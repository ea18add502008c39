// Package statestore reads and writes one rollout's state ConfigMap: a read-modify-write
// (Store.UpdateCM) that decides again on a concurrent change, so a person's edit or another
// writer's is never lost, refuses to write a state a read would refuse, and remembers the
// last state it decoded or wrote (Memo) so an unchanged ConfigMap is not decoded again.
//
// The state document and its codec are internal/state's (no client-go there); this is the
// I/O, kept out of the engine's import graph.
package statestore
