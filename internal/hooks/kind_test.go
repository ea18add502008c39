package hooks

import (
	"context"
	"maps"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// TestAHookWithoutItsBlockIsErrored: a type this build does not run, or a hook without
// its kind's block, is Errored with a message, not run.
func TestAHookWithoutItsBlockIsErrored(t *testing.T) {
	for _, h := range []spec.Hook{
		{Name: "h", Type: "job"},
		{Name: "h", Type: "http"},
		{Name: "h", Type: "http", Block: &urlBlock{}},
		{Name: "h", Type: "job", Block: &urlBlock{URL: "https://example.com"}},
	} {
		if res := New(Limits{}).Run(context.Background(), Call{Hook: h}); res.Outcome != Errored || res.Message != `hook "h" has no `+h.Type+" block" {
			t.Errorf("%+v: %s %q", h, res.Outcome, res.Message)
		}
	}
}

// TestReachOfAnotherKindsBlock: a hook whose block is not its kind's reaches nothing
// (each kind's own reach is its package's to test).
func TestReachOfAnotherKindsBlock(t *testing.T) {
	h := spec.Hook{Type: "job", Block: &urlBlock{URL: "https://slo.example.com/x"}}
	if got := New(Limits{}).Reach(h); got != (Reach{}) {
		t.Errorf("%+v: %+v, want none", h.Block, got)
	}
}

// urlBlock is a block of no registered kind, for the tests of what the runner and the
// templating do with any kind's block: its URL and header values are its templated fields.
type urlBlock struct {
	URL     string            `json:"url"`
	Body    string            `json:"body,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

func (b *urlBlock) Fill(f func(string) string) spec.HookBlock {
	c := &urlBlock{URL: f(b.URL), Body: f(b.Body), Headers: maps.Clone(b.Headers)}
	for k, v := range c.Headers {
		c.Headers[k] = f(v)
	}
	return c
}
