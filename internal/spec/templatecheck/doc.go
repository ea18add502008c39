// Package templatecheck is the seam between the spec parser (internal/spec) and the Argo CD
// half of it (internal/spec/appset): what the parser hands an ApplicationSet's spec.template
// to (Input), what it gets back (the Application as JSON, or Problems), and the FieldError a
// template string that does not compile is reported with.
//
// It imports the standard library only, so the spec parser — and the engine, which reads
// the spec's types — links neither Argo CD's types nor its template functions: those stay
// behind internal/spec/appset, which registers its check here (Register) and which every
// program that parses a spec from git links (the renderer does, so the sidecar, the agent
// and the CLI do). A program that parses a spec without it is told so, in the spec's
// errors, rather than handed a template nothing checked.
package templatecheck
