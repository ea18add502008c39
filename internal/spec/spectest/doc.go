// Package spectest holds the spec the hook kinds' tests parse their hooks in, so that each
// kind's package tests its spec half against the same document. Only tests import it.
package spectest
