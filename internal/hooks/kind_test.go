package hooks

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// The kind whose run half is still here, registered for this package's tests as
// internal/hooks/all registers them for the binaries.
func init() {
	Register(JobKind)
}

// TestEveryKindHasBothHalves: a kind registered in spec (so a spec may use it) without a
// run half (so the agent cannot run it), or whose halves differ, fails; so does a run half
// that does not take its own spec half's block.
func TestEveryKindHasBothHalves(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, sk := range spec.HookKinds() {
		k, ok := kindOf(sk.Name())
		if !ok {
			t.Errorf("kind %s: registered in spec but has no run half", sk.Name())
			continue
		}
		if half := reflect.ValueOf(k).FieldByName("HookKind"); !half.IsValid() || half.Interface() != sk.Half() {
			t.Errorf("kind %s: its run half embeds another spec half", sk.Name())
		}
		var h spec.Hook
		if err := json.Unmarshal([]byte(`{"name":"h","type":"`+sk.Name()+`","`+sk.Name()+`":{}}`), &h); err != nil || h.Block == nil {
			t.Fatalf("kind %s: an empty block from the plan: %v", sk.Name(), err)
		}
		_ = k.Reach(h.Block)
		res := New(Limits{}).Run(cancelled, Call{Hook: h})
		if res.Outcome != Errored || strings.Contains(res.Message, "has no "+sk.Name()+" block") {
			t.Errorf("kind %s: an empty block, cancelled, must be Errored by the kind itself: %s %q", sk.Name(), res.Outcome, res.Message)
		}
	}
}

// TestAHookWithoutItsBlockIsErrored: a type this build does not run, or a hook without
// its kind's block, is Errored with a message, not run.
func TestAHookWithoutItsBlockIsErrored(t *testing.T) {
	for _, h := range []spec.Hook{
		{Name: "h", Type: "job"},
		{Name: "h", Type: "http"},
		{Name: "h", Type: "http", Block: &spec.JobHook{}},
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
