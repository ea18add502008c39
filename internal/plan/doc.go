// Package plan is the rollout plan: one type, written by the renderer into the plan
// ConfigMap (Object) and read back by the agent, the engine and the CLI (Decode).
//
// A plan is what the agent needs to drive one revision: its spec body and id, its phases
// (spec.Phase, whose JSON form is the plan's), the rollout-wide rules, the other revisions
// the state kept, the children that follow a moving ref, and how children are rendered.
// It imports spec and targets (the phase type and its expressions) and the on-cluster
// contract; neither the renderer, client-go nor the Kubernetes API types: Decode reads the
// ConfigMap's metadata and data as plain maps (Manifest), which its callers copy.
package plan
