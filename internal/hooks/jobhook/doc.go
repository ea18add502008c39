// Package jobhook is the hook kind `type: job`, whole: a Kubernetes Job the agent creates,
// judged by its Complete or Failed condition.
//
// Its spec half (spec.go, pod.go, labels.go) reads the block through spec.HookReader: a
// namespace, a hookDeletePolicy (seed 002's) and a batch/v1 JobSpec decoded strictly;
// it refuses a pod that would run with more than the agent grants (its own service
// account or token, the node's namespaces or paths, a privileged container), a
// ttlSecondsAfterFinished that could delete the Job before its outcome is recorded, a
// secret reference that would write a value into the Job, and reserved label or
// annotation keys; which pod labels an installation allows is a limit
// (--job-allowed-labels: Block.Violations, kind.CheckSettings). Its timeout limit is fixed
// (MaxJobTimeout). Instead of the pod template, job.execNewPod (execnewpod.go, seed 004's
// ExecNewPodAction) names a workload of the child's destination and one of its
// containers, for a per-cluster hook only.
//
// Its run half (run.go, object.go, wait.go, secrets.go, target.go, workload.go) creates
// the Job on the control cluster for a per-phase run (in job.namespace, else
// Options.Namespace: --job-namespace, else the agent's), in the run's cluster for a
// per-cluster one (the
// kind reads the child: hooks.ChildReader, so the agent hands the run the child's
// hooks.Target), named from the rollout, revision and ledger key and annotated with the
// run, so another agent or attempt adopts it rather than making a second; an execNewPod
// hook's pod is made then from the workload, read in that cluster (podFromWorkload: the
// container's image, env and envFrom, the hook's command), and hardened as any; it runs as
// Options.ServiceAccount (--job-service-account) without a token; a referenced Secret must
// carry contract.LabelHookSecret; transient read errors while waiting are retried; the Job
// is never deleted by Run but named in Result.Cleanup (JobRef), which the agent calls once
// the ledger has the outcome. Once the Job ended, the message carries the tail of its
// newest pod's log (podlog.go), redacted of every value of the Secrets the pod references,
// failing closed (logredact.go).
//
// Its reach into the clusters (clients.go, clustercreds.go, project.go) is built from the
// runner's hooks.Clusters, which the agent gives without knowing this kind: a per-cluster
// Job's cluster must be permitted by the child's AppProject (destination, batch/Job and
// execNewPod's workload kind, as Argo CD would decide), and its client is made from Argo
// CD's cluster Secret, read by a direct GET for that call only (never kept, logged or told; no exec plugins); the
// in-cluster server is the agent's own client. internal/hooks/all registers it.
package jobhook
