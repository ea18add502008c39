// Package telemetry is what both binaries tell operators besides their logs: the build
// they run (cmp_phase_build_info) and a metrics server (/metrics, /healthz, /readyz, and
// /debug/pprof when asked), bounded like any server of ours; and the agent's metrics of
// its rollouts (AgentMetrics).
package telemetry
