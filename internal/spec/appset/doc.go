// Package appset is the Argo CD half of the spec parser: it checks an ApplicationSet's
// spec.template as the ApplicationSet controller reads it — decoded into Argo CD's
// Application (argo-cd's v1alpha1, unknown fields refused) and its strings compiled with
// Argo CD's template functions and templatePatch (internal/render/tmpl) — and yields the
// Application as JSON, the spec's Template.
//
// Linking it registers that check with internal/spec/templatecheck, where the spec parser
// finds it: the renderer imports it, so the sidecar, the agent and the CLI check every spec
// they parse; the engine (internal/rollout), which only reads the spec's types, links
// neither it nor Argo CD.
package appset
