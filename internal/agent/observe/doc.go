// Package observe reads what the phase engine needs of a live child Application
// (rollout.Observation): the revision it was admitted to, whether Argo CD compared its
// current spec, its sync and health, and its last operation — phase, finish, the marker
// and attempt the agent wrote, and a message that names the failed resources (their last
// line, bounded) so a failure can be told transient or permanent. Pure.
package observe
