// Package childop is what the agent writes to a child Application, pure: the merge patch
// that moves it to its rendered spec and starts its sync (MovePatch, conditional on the
// resourceVersion read, never replacing a pending operation), and the sync it starts as
// Argo CD's automated sync would, marked with the admission (Sync) and numbered when
// started again (Retry). internal/agent/observe reads the marks back.
package childop
