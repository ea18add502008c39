package hooks

import (
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// TestRunTimeoutIsNeverCut: an attempt may take the hook's timeout as declared, even over
// seed 000's default limits (the caps decide whether it runs, never how long).
func TestRunTimeoutIsNeverCut(t *testing.T) {
	for h, want := range map[spec.Hook]time.Duration{
		{Type: "command", Timeout: 24 * time.Hour}: 24 * time.Hour,
		{Type: "http", Timeout: time.Hour}:         time.Hour,
		{Type: "http"}:                             spec.DefaultHookTimeout,
	} {
		if got := RunTimeout(h); got != want {
			t.Errorf("%+v: %s, want %s", h, got, want)
		}
	}
}
