package spec

// The kinds whose spec half is still defined in this package, registered for its
// internal tests as internal/hooks/all registers them for the binaries (the whole kinds,
// which take these halves' places when the external tests import it).
func init() {
	RegisterHookKind(JobKind)
}
