package all_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	_ "github.com/cmp-phase/cmp-phase/internal/hooks/all"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/spec/spectest"
)

// TestAnUnknownOrMissingTypeListsEveryKindAsBefore: the kinds registered here are told in
// the order they always were.
func TestAnUnknownOrMissingTypeListsEveryKindAsBefore(t *testing.T) {
	for hook, want := range map[string]string{
		"{name: a, type: ftp, http: {url: 'https://x'}}": `type: unknown value "ftp" (fix: use one of: http, command, job, metric)`,
		"{name: a, http: {url: 'https://x'}}":            `type: is required (fix: write type: http or type: command or type: job or type: metric)`,
	} {
		_, err := spectest.ParseWithCheck(hook)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", hook, err, want)
		}
	}
}

// TestEveryRegisteredKindIsWhole: every kind a spec may use has a run half, and a block
// that reads back from the plan, fills into its own type and says where each templated
// field lands (hooks.FieldFiller: else its cluster values would go unescaped).
func TestEveryRegisteredKindIsWhole(t *testing.T) {
	for _, k := range spec.HookKinds() {
		if _, ok := k.(hooks.Kind); !ok {
			t.Errorf("kind %s: registered without a run half", k.Name())
		}
		zero, err := k.Decode([]byte("{}"))
		if err != nil || zero == nil {
			t.Fatalf("kind %s: decode of an empty block: %v, %v", k.Name(), zero, err)
		}
		if filled := zero.Fill(func(s string) string { return s }); reflect.TypeOf(filled) != reflect.TypeOf(zero) {
			t.Errorf("kind %s: Fill returns a %T, not its own %T", k.Name(), filled, zero)
		}
		if _, ok := zero.(hooks.FieldFiller); !ok {
			t.Errorf("kind %s: its %T does not say where its fields land (hooks.FieldFiller)", k.Name(), zero)
		}
	}
}

// TestEveryKindHasBothHalves: a kind registered in spec (so a spec may use it) without a
// run half (so the agent cannot run it), or whose halves differ, fails; so does a run half
// that does not take its own spec half's block.
func TestEveryKindHasBothHalves(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, sk := range spec.HookKinds() {
		k, ok := sk.(hooks.Kind)
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
		res := hooks.New(hooks.Limits{}).Run(cancelled, hooks.Call{Hook: h})
		if res.Outcome != hooks.Errored || strings.Contains(res.Message, "has no "+sk.Name()+" block") {
			t.Errorf("kind %s: an empty block, cancelled, must be Errored by the kind itself: %s %q", sk.Name(), res.Outcome, res.Message)
		}
	}
}
