// Package versioncmd is the `version` command both binaries have (cmp-phase version, agent
// version): a line of text by default, --short the version alone, -o json or -o yaml the
// same fields as a document for scripts.
package versioncmd
