// Package hooks runs the pre-hooks, checks and post-hooks of seed 000: `type: http` and
// `type: command`, bounded and defended. A run never blocks the agent's loop (the agent
// runs it in the background and records it in the state's ledger); this package is the
// runner itself: one call, its attempts under failurePolicy retry, and a Result that keeps
// "ran and said no" (Failed) apart from "could not run" (Errored).
//
// HTTP: TLS verified unless insecureSkipVerify; the resolved address is checked and dialled
// (no DNS rebinding); link-local and cloud-metadata addresses are always refused, loopback
// and private ranges only when the agent allows them; every redirect is re-checked, at most
// 5; the response body is capped (a lying Content-Length too).
//
// Commands: argv only, no shell; the executable must resolve inside an allow-listed
// directory; the environment is scrubbed to an allow-list plus the injected and declared
// variables; the command runs in its own process group in a fresh temp directory, is sent
// SIGTERM then SIGKILL on timeout, and its output is captured and capped.
//
// Secret values a call carries are redacted from every message.
package hooks
