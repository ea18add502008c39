// Package rollout is the pure phase engine's vocabulary: how many members a phase admits or
// updates at once (documented rounding), which children belong to which phase (a sorted,
// deterministic snapshot), and when a child is really done with the revision it was admitted
// to (never on stale health from the previous revision). No I/O and no clock reads: time is
// passed in. A phase with tracks splits the rollout: each track walks its own copy of the
// phases after the split with the same walk, over a view of the rollout (tracks.go).
package rollout
