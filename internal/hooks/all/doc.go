// Package all is the one place the hook kinds this build runs are named: importing it
// registers each (hooks.Register, both halves at once) and BindFlags binds each kind's own
// options. The two binaries import it; so do the tests of packages that read specs with
// hooks. A new kind is its package under internal/hooks and one line in kinds (and one in
// BindFlags when it has options).
package all
