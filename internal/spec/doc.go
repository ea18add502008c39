// Package spec parses and validates the rollout spec kept in git: an ApplicationSet in either
// of the seed dialects — generators[].deploymentStrategy of type phaseDeployment, or
// strategy.type RollingSync / RollingUpdate with steps — plus cmp-phase's extensions
// (targets[].expr). It normalises both dialects into one Spec with ordered Phases, and reports
// every problem with the file, line, field path and a fix.
//
// A hook's block is read by its kind (HookKind: http, command, job, metric; one file hook_<name>.go
// each, listed in hookKinds), the spec half of the kinds internal/hooks runs; see that
// package's documentation. A metric check's conditions are compiled here
// (metric_condition.go), so a bad one is refused where the spec is read.
package spec
