// Package spec parses and validates the rollout spec kept in git: an ApplicationSet in either
// of the seed dialects — generators[].deploymentStrategy of type phaseDeployment, or
// strategy.type RollingSync / RollingUpdate with steps — plus cmp-phase's extensions
// (targets[].expr). It normalises both dialects into one Spec with ordered Phases, and reports
// every problem with the file, line, field path and a fix.
package spec
