// Package render is the pure heart of the plugin: (spec, inventory, state, env) → the child
// Applications Argo CD should apply, plus the plan ConfigMap the agent reads. Children admitted
// by the active rollout get its revision; every other deployed child is rendered at the
// revision it runs; children never deployed are not rendered. It fails closed: a missing or
// stale state, a deployed child it cannot render, or an empty inventory where the state
// expects clusters is an error, never a shorter output.
package render
