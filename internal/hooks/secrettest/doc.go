// Package secrettest spells a secret every way a message or a pod's log may quote it, for
// the redaction tests of internal/hooks and its kinds: one list, written apart from the
// redactor's own (hooks.SecretForms), so a form the redactor misses fails a test.
package secrettest
