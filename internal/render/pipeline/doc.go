// Package pipeline is the render pipeline written once, run by the CMP server and by
// `cmp-phase generate`: the app directory's spec (or the answer for a spec gone from git),
// the render environment, the state and inventory, a preview's next batch, the content of
// the repository checkout, and the render — a stale state retried for a while when asked.
// What differs between the two callers (where the spec, state, inventory and checkout come
// from) is a Source; writing the manifests out is theirs.
package pipeline
