// Package targets decides which clusters (or generated Applications) a phase selects: explicit
// cluster names, key/value matches, Kubernetes-style matchExpressions (In, NotIn, Exists,
// DoesNotExist) and expr-lang boolean expressions. Expressions are compiled once, bounded in
// size, rejected at load time unless boolean, and cached by source in an LRU. A Child is what
// a phase selects: the renderer builds them, the engine assigns them to phases. An Ordering
// (a phase's order and spread) gives clusters keys through KeyPrograms: expressions over the
// same names that give a string or a number, compiled once and cached beside the others.
package targets
