// Package spec parses and validates the rollout spec kept in git: an ApplicationSet in either
// of the seed dialects — generators[].deploymentStrategy of type phaseDeployment, or
// strategy.type RollingSync / RollingUpdate with steps — plus cmp-phase's extensions
// (targets[].expr). It normalises both dialects into one Spec with ordered Phases, and reports
// every problem with the file, line, field path and a fix.
//
// A hook's block is read by its kind (HookKind), the spec half of the kinds internal/hooks
// runs, through a HookReader; a kind registers itself (RegisterHookKind, from
// internal/hooks/all) and declares what the engine may know of it (HookTraits). No kind is
// defined here: each lives in its package under internal/hooks (httphook, commandhook,
// jobhook, metrichook). The installation's Limits name what a kind's limits are set by
// (--max-http-timeout, --job-allowed-labels, …); the kinds read them. See internal/hooks'
// documentation.
//
// spec.template is checked as the ApplicationSet controller reads it — decoded into Argo
// CD's Application and compiled with its template functions — by internal/spec/appset,
// which the parser finds through internal/spec/templatecheck (the renderer links it). This
// package links neither Argo CD nor client-go, so neither does the engine, which reads its
// types.
package spec
