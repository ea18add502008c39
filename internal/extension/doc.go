// Package extension serves a rollout's status document (the one `cmp-phase status -o json`
// prints, built by internal/status) to the Argo CD UI extension, and, when the operator
// switches them on, records the UI's steering actions (approve, reject, pause, resume,
// promote) through internal/steer, the CLI's own path and checks.
//
// It is reached only through Argo CD's proxy extension: argocd-server authenticates the
// user, checks `applications, get` on the parent and `extensions, invoke`, and adds a
// shared-secret header (a $secret reference in extension.config) this handler compares in
// constant time. It serves only the rollout whose parent Application the
// Argocd-Application-Name header names, and is bounded: a request body limit, a timeout
// for each request's API calls, and a limit on requests in flight. It never writes a
// token or a Secret's value into a response.
package extension
