// Package deps holds the test of what the engine and the spec parser link (issue 48): the
// engine (internal/rollout) and the spec's types and parser (internal/spec) link neither
// client-go nor Argo CD, whose Application types and template functions stay behind the
// renderer (internal/spec/appset, linked by internal/render). It has no code besides the
// test, and no build tags: go test ./... runs it.
package deps
