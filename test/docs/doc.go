// Package docs holds the test of the project's documentation: README.md and docs/**/*.md.
// It fails on a relative link to a file that does not exist or to an anchor no heading of
// the target makes; on a page missing from mkdocs.yml's nav, or a nav entry without its
// page; on a spec example that `cmp-phase validate` would reject (a YAML block meant to be
// rejected is marked by an `<!-- invalid -->` line right before it, and must then be
// rejected); on a README over 150 lines; on a security page whose table of adversarial
// and fault tests differs from what the tests say (hack/securitytable); and on a layout
// table (docs/layout.md) that misses a package or a top-level folder, names a path that is
// gone, or whose row of an internal package does not begin with its doc.go's first
// sentence (layout_test.go states the rules). It has no code besides the test, and no build
// tags: go test ./... runs it.
package docs
