// Package httphook is the hook kind `type: http`, whole: one request, judged by its
// status.
//
// Its spec half (spec.go) reads and validates the block through spec.HookReader: an
// absolute http:// or https:// URL (a templated one is checked for its scheme only), a
// check GETs and a hook POSTs unless it says otherwise, the expected status (default 200);
// its timeout limit is the installation's --max-http-timeout and its headers count against
// --max-headers. Its run half (run.go) sends the request through the runner's guarded
// client (hooks.Runner.Client: checked addresses, no proxy, re-checked redirects, TLS
// verified unless insecureSkipVerify) with the injected headers, reads at most
// --max-response-body of the answer, and reaches its URL's host, one of the agent's
// --hooks-per-host slots for the run's length. It has no options of its own: what bounds
// it (private ranges, redirects, CAs) is the guarded client's, which metric checks share.
// internal/hooks/all registers it.
package httphook
