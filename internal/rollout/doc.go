// Package rollout is the pure phase engine: given the plan, the state, what the agent
// observed and the time, it decides the next state and the I/O to do once it is written. No
// I/O and no clock reads: time is passed in, and the same inputs always decide the same.
//
// # One door
//
// Decide(plan, state, observed, now) is the engine's one door: it rebuilds a lost state when
// the live children prove there was one (Rebuild), steps it (Step), and says which children
// move (Moving), which the agent syncs once the parent's render arrived (Syncs: admitted,
// waiting, and not syncing themselves, NeedsSync) and, once per state generation, which
// to warm (PreviewNext). A deleted
// parent's or a removed spec's children go through dismantle instead. The agent gathers the
// Observed, calls Decide, writes Decision.Next and carries the rest out; it decides nothing
// of its own. Observed is plain data, all of it computed before Decide: what would change
// against a rebuilt state (ChangedIfRebuilt) the agent asks the renderer for over Rebuilt,
// the same state Decide rebuilds; the engine calls nothing back.
//
// # Types at the bottom
//
// types.go holds what goes in and out: Observed (and each live child's Observation, each
// hook run's HookResult, a Dismantle), Decision, Move and Sync, a child's Verdict, a failed sync's
// FailureKind, and the engine's short names for the statuses. actions.go holds Action and its kinds: an Event, a hook run, a consumed
// control key, a retried sync, when to come back. Both hold types and constants only and
// call nothing: the rules sit above them.
//
// # One receiver per pass
//
// Step makes one pass (pass.go): the state it changes (a clone of the current one), the plan
// and observations it goes by, the time, and the actions asked for so far. The engine's
// rules are the pass's methods: a rule reads ps.p and ps.o, changes ps.st, and asks for I/O
// with ps.add, ps.emit (an Event also recorded in the rollout's history), ps.warn,
// ps.requeue and ps.consume; a refused edit of the ConfigMap is ps.reject, which steer
// reports once. No rule is handed the actions. A rule that goes by other observations or
// another plan (a rollout that just started, a track's view) runs on a copy (ps.under,
// ps.inTrack) that hands back what it added.
//
// # Files
//
//   - the door and the step: decide.go, step.go (Step, start, the written state), pass.go,
//     rebuild.go, moving.go, syncs.go, requeue.go, preview.go, reasons.go, times.go,
//     unselected.go
//   - the walk of a rollout: progress.go (phases: enter, settle, admit, gates, succeed),
//     batch.go and batchwait.go (batches and the wait between them), budget.go, complete.go,
//     soak.go, gates.go and limits.go (hook lists, held hooks), percluster.go (per-cluster
//     runs), approvals.go, windows.go and openings.go (change windows, their next opening)
//   - failure and return: failhooks.go, rollback.go, retry.go and transient.go (transient
//     sync failures), replan.go (phases changed mid-rollout)
//   - who takes part: lineup.go, members.go, arrange.go, admissions.go, size.go (documented
//     rounding), phaselimits.go, settle.go (when a child is really done with its revision,
//     never on stale health from the previous one)
//   - the fleet around it: fleet.go (idle, late joiners, removals in deletionOrder),
//     postdelete.go, shards.go, adopt.go (pinned commits)
//   - a person's edits: steer.go, stopall.go (the fleet-wide stop), stale.go, retire.go (a
//     removed spec's retirement)
//   - tracks: tracks.go (a phase with tracks splits the rollout; each track walks its own
//     copy of the later phases, over a view of the rollout), tracks_steer.go
//   - the end of a rollout's children: dismantle.go, teardown.go
//   - the vocabulary: types.go, actions.go, events.go (Event reasons)
package rollout
