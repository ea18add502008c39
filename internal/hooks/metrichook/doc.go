// Package metrichook is the hook kind `type: metric`, whole: a check that asks Prometheus
// an instant query count times every interval (or through the phase's soak, with
// `during: soak`) and judges each answer by expr-lang conditions over `result`.
//
// Its spec half (spec.go, condition.go) reads and validates the block through
// spec.HookReader and compiles the conditions where the spec is read; its run half
// (run.go, prom.go, judge.go) queries through the runner's guarded client and tallies the
// measurements; Options (options.go) is --prometheus-address. It declares the traits the
// engine asks (spec.HookTraits): a check may run during the soak, and an Inconclusive
// one pauses the rollout for a person. internal/hooks/all registers it.
package metrichook
