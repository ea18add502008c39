// Package watchlag measures how late a pass of the agent reads a change: which of the
// Applications a pass read changed last (its newest status timestamp, Argo CD's: whole
// seconds; the highest resourceVersion among those of the same second), and whether the
// rollout's passes read a change that late before. The agent logs every pass's read with it
// and observes the lag of a pass that read a new change (cmp_phase_watch_lag_seconds), so
// the watch's delivery is measured, not inferred from when states were written. Pure.
package watchlag
