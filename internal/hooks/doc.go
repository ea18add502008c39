// Package hooks runs the pre-hooks, checks and post-hooks of seed 000 (`type: http` and
// `type: command`) and of issue 13 (`type: job` and `type: metric`), bounded and defended.
// A run never blocks the agent's loop (the agent runs it in the background and records it
// in the state's ledger); this package is the runner itself: one call, its attempts under
// failurePolicy retry, and a Result that keeps "ran and said no" (Failed) apart from
// "could not run" (Errored). It names no kind: each is a package of its own under
// internal/hooks (httphook, commandhook, jobhook, metrichook), registered by
// internal/hooks/all.
//
// # Kinds
//
// A hook's type (http, command, job, metric) is a kind, and each kind has two halves,
// keyed by its name, both in the kind's package:
//
//   - the spec half, spec.HookKind (spec.NewHookKind): it reads and validates the kind's
//     block through spec.HookReader with file:line:field errors, gives its timeout limit,
//     and says which fields are templated (HookBlock.Fill). It is pure, so the plugin and
//     `cmp-phase validate` link it without any runner;
//   - the run half, Kind: it embeds the spec half and adds Run and Reach (the host a run
//     reaches, for the agent's per-host cap, and whether TLS goes unverified).
//
// What every kind shares is written once, so no kind can forget it: the common fields
// (name, type, timeout, failurePolicy) and the check that a hook carries no other kind's
// block (spec's hook parser); whether a hook (pre, check or post) runs per cluster (spec.Hook.PerCluster, from
// the fields Fill visits: a cluster field in any of them); the timeout (as declared,
// the default when unset; the installation's spec.Limits decide whether a hook runs, never
// how long: the engine holds a hook over them, validate reports it, the Runner refuses it);
// templating and secret references (Template, through FillFields: each kind says where each field lands, a URL, a body, a query, an argument, and a cluster value is escaped for it or refused, escape.go); redacting and capping the
// message, and retries (Runner). The plan carries a hook's block under its kind's name
// (spec.Hook.MarshalJSON), as it always has.
//
// A new kind is one package under internal/hooks (see metrichook): its block type with
// Fill and FillFields, its parse through spec.HookReader, its spec half from spec.NewHookKind with its
// name, timeout limit and traits (spec.HookTraits: what the engine knows of it, never its
// name), a type embedding that half with Run and Reach (and CallTimer, Defaulter or
// spec.LimitedBlock when it needs them), its own Options with BindFlags; then one line in
// internal/hooks/all, which registers both halves with Register. A kind defined in a test
// of internal/agent shows it runs through validate, the engine and the runner. What a
// kind needs of the agent it asks through this package, never by name: the guarded HTTP
// client (Runner.Client), the clusters Argo CD knows (Runner.Clusters, which the agent
// gives with WithClusters), the child of a per-cluster run (ChildReader, Call.Target), and
// the removal of what a run left once its outcome is recorded (Result.Cleanup). Tests fail
// when a kind has one half and not the other, when its halves do not match, and when a string value
// of its block is not templated (and so would not make a check per-cluster) or not
// carried by the plan.
//
// Runs that take long (a Kubernetes Job, a metric measured count times every interval)
// fit as they are: a run is a ledger entry, Running until its result is recorded, and a
// new agent calls Run again with the same idempotency key, so such a kind finds the work
// it started by that key rather than starting it twice. An outcome beyond the three (a
// metric's Inconclusive) is a new Outcome with the ledger status the agent records it as.
// A kind's parse sees whether the hook is a check, so a field only checks may set (a
// metric's `during: soak`) is refused in a pre- or post-hook with its line; when a hook
// runs stays the engine's (internal/rollout) to decide, from what the spec half parsed.
//
// # Defences
//
// HTTP (internal/hooks/httphook, through the runner's guarded client, dial.go): TLS
// verified unless insecureSkipVerify; the resolved address is checked and dialled
// (no DNS rebinding); link-local and cloud-metadata addresses are always refused, loopback
// and private ranges only when the agent allows them; every redirect is re-checked, at most
// 5; the response body is capped (a lying Content-Length too).
//
// Commands (internal/hooks/commandhook): argv only, no shell; the executable must resolve inside an allow-listed
// directory; the environment is scrubbed to an allow-list plus the injected and declared
// variables; the command runs in its own process group in a fresh temp directory, is sent
// SIGTERM then SIGKILL on timeout, and its output is captured and capped.
//
// Jobs (internal/hooks/jobhook): created on the control cluster for a per-phase run, in
// the run's cluster for a per-cluster one once the child's AppProject permits it, with a
// client made from Argo CD's cluster Secret for that call only (this package never sees a
// credential); adopted by another agent or attempt rather than made twice; run as the
// agent's job service account without a token; a referenced Secret must carry
// contract.LabelHookSecret; the Job is deleted only after the ledger has the outcome
// (Result.Cleanup); its pod's log tail, redacted and failing closed, joins the message.
//
// Metric checks (internal/hooks/metrichook): a Prometheus instant query through the
// runner's guarded client (Runner.Client: the http hooks' address checks, redirect rules
// and body cap), one --hooks-per-host slot per query (Reach.PerRequest, Call.Slot).
//
// Secret values a call carries are redacted from every message.
package hooks
