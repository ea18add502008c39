// Package childsync starts the syncs of child Applications against the API, as Argo CD's
// own `argocd app sync` would: only when no operation is present, with the resourceVersion
// read, so a sync someone else started (a person, Argo CD's automated sync) is never
// replaced. Start and StartAll start the syncs the engine decided (rollout.Decision.Syncs:
// admitted children that do not sync themselves), choosing none; Retry and RetryAll carry out the engine's ActSyncAgain, a sync that failed on
// a transient error started again once its backoff is over, judged again on the live child.
// What is written is internal/agent/childop's (the operation, its marks); what the engine decides
// is internal/rollout's.
package childsync
