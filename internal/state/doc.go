// Package state is the versioned codec of a rollout's state ConfigMap: the revisions in use
// with the spec needed to re-render each, which revision every deployed child runs (a default
// plus exceptions), the active rollout, and a monotonic generation. The state is one gzip'd
// JSON document in binaryData; decoding is strict and fails on an unknown schema, corrupt
// data, broken invariants or over-size input. Human-editable control keys live in other keys
// of the same ConfigMap and are not part of this document.
package state
