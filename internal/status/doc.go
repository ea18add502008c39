// Package status turns a rollout's state into what people read: one document, the stable
// JSON/YAML of `cmp-phase status -o json` (documented in docs/operating.md), rendered as the table
// that fits 100 columns (`cmp-phase status`) and as the summary the agent keeps in the state
// ConfigMap's status key (Text, from the document's Outline). It is pure.
package status
