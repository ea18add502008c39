package hooks

import (
	"crypto/x509"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// Limits bound what a hook may do. The zero value of a field means its default.
type Limits struct {
	// Caps are the installation's limits on what a hook may ask for (timeout, variables,
	// headers) and the response body read: a hook over one is not run (Errored, naming the
	// setting; the engine holds such hooks before they get here). Zero fields: seed 000's.
	Caps         spec.Limits
	MaxMessage   int // message bytes in a Result (default 1 KiB)
	MaxRedirects int // default 5
	// AllowPrivate lets HTTP hooks reach loopback and private ranges (RFC 1918, ULA, CGNAT);
	// link-local and metadata addresses are refused regardless.
	AllowPrivate bool
	// RootCAs verifies TLS (nil: the system pool).
	RootCAs *x509.CertPool
	// Kinds are the kinds' own options (a kind package's Options, as its BindFlags bound
	// them, or a pointer to them), which each kind finds with OptionsOf.
	Kinds []any
}

func (l Limits) withDefaults() Limits {
	defInt := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	l.Caps = l.Caps.OrDefaults()
	defInt(&l.MaxMessage, 1<<10)
	defInt(&l.MaxRedirects, 5)
	return l
}
