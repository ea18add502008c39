// Package contract is the on-cluster contract of cmp-phase: every name, key, label,
// annotation and environment variable that the plugin (cmp-phase serve / generate), the
// agent, the CLI (cmp-phase status, preview and the steering verbs) and people's edits
// (kubectl edit of a state ConfigMap, a parent's plugin env) agree on, and the Argo CD names
// cmp-phase reads or writes. It is modelled on Flux's apis/meta: constants and tiny pure
// helpers, grouped by the object they live on, nothing else.
//
// Nothing else in the module spells these strings: a package that reads or writes one of
// them uses the constant here, so renaming a key is one edit and a reader finds the whole
// contract in one place. Changing a value changes what is on people's clusters; the tests
// of this package pin every value so such a change is always deliberate.
//
// The package imports only the standard library and nothing from this module, so every
// package may import it without pulling in anything else.
package contract
