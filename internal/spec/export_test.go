package spec

import _ "github.com/cmp-phase/cmp-phase/internal/spec/appset" // the template check, as the binaries link it

// Helpers of the internal tests that the external ones (kinds_test.go, limits_test.go:
// specs with hooks of every kind) use too.
var (
	SpecWith       = specWith
	ParseWithCheck = parseWithCheck
	ParseSeed      = parseSeed
	MustReadFile   = mustReadFile
	PolicySpec     = policySpec
)
