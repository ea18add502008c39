package rollout

import "github.com/cmp-phase/cmp-phase/internal/spec"

// Count turns a phase's size into a number of members, for a phase of n members.
//
// Rounding, for both dialects: a percentage floors, with a minimum of 1 when the percentage is
// above 0 and the phase has members (seed 003: "rounds down, but floored at 1 Application for
// >0%"); a count is capped at n; a manual gate (RollingSync maxUpdate: 0) is 0; no bound is n.
//
// phaseDeployment reads it as how many of the phase's targets the phase admits, cumulatively
// across phases sharing targets (seed 000's 10% canary, then 100% of the same targets).
// RollingSync/RollingUpdate read it as how many of a step's members update at once.
func Count(s spec.Size, n int) int {
	if n <= 0 {
		return 0
	}
	switch {
	case s.Gate:
		return 0
	case s.Kind == spec.SizeAll:
		return n
	case s.Kind == spec.SizeCount:
		return min(s.Value, n)
	default: // SizePercent
		if s.Value <= 0 {
			return 0
		}
		return max(1, n*s.Value/100)
	}
}
