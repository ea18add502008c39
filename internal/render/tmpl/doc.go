// Package tmpl renders ApplicationSet templates with Argo CD's semantics — fasttemplate
// {{param}} by default, Go templates with goTemplate/goTemplateOptions and Argo CD's function
// set, templatePatch — but compiles the template once: every string leaf and map key is parsed
// a single time, and rendering a child writes its JSON straight into a buffer. For the same
// template and parameters the result equals argo-cd's applicationset/utils renderer (a
// differential test holds us to that).
package tmpl
