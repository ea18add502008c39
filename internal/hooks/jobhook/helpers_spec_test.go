package jobhook

import (
	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/spec/spectest"
)

func init() { hooks.Register(Kind) } // as internal/hooks/all does, which this package's tests cannot import

const base = spectest.Base

// parseWithCheck parses a spec whose first phase has the check hook (YAML flow style).
func parseWithCheck(hook string) (*spec.Spec, error) { return spectest.ParseWithCheck(hook) }
