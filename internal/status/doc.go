// Package status turns a rollout's state into what people read: a stable JSON/YAML document
// (`cmp-phase status -o json`, documented in the README) and a table that fits 100 columns.
// It is pure.
package status
