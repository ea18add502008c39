package templatecheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
)

// Input is an ApplicationSet's template as the spec parser read it.
type Input struct {
	// Raw is spec.template as JSON, decoded from YAML as kubectl does.
	Raw []byte
	// Patch is spec.templatePatch ("" for none).
	Patch string
	// GoTemplate and GoTemplateOptions are spec.goTemplate and spec.goTemplateOptions.
	GoTemplate        bool
	GoTemplateOptions []string
}

// Problem is one thing wrong with a template, as the spec reports it.
type Problem struct {
	// Field is the template field the problem is at, by the path a FieldError names it with
	// ("template.spec.sources[1].path", "templatePatch"); "" for the template as a whole,
	// at Path.
	Field string
	// Path is the spec's field path of a problem without a Field ("spec.template",
	// "spec.template.metadata.name").
	Path string
	Fix  string
	// Msg is the problem on one line.
	Msg string
}

// Func checks a template as the ApplicationSet controller reads it: the Application it
// yields as JSON (nil when it yields none), and what is wrong with it.
type Func func(Input) (json.RawMessage, []Problem)

var (
	mu      sync.RWMutex
	checker Func
)

// Register makes f the check of every template parsed from now on (internal/spec/appset
// registers its own when linked).
func Register(f Func) {
	mu.Lock()
	defer mu.Unlock()
	checker = f
}

// Check checks in with the registered check; with none, a problem that says so.
func Check(in Input) (json.RawMessage, []Problem) {
	mu.RLock()
	f := checker
	mu.RUnlock()
	if f == nil {
		return nil, []Problem{{Path: "spec.template", Msg: "cannot be checked: this program links no template check",
			Fix: "import github.com/cmp-phase/cmp-phase/internal/spec/appset"}}
	}
	return f(in)
}

// FieldError is a template string that does not compile, and where it is in the template
// tree ("template.metadata.name", "template.spec.sources[1].path", or "templatePatch").
type FieldError struct {
	Path string
	Err  error
}

func (e *FieldError) Error() string { return e.Path + ": " + e.Err.Error() }

func (e *FieldError) Unwrap() error { return e.Err }

// DecodeTree decodes a JSON object keeping numbers as json.Number.
func DecodeTree(b []byte) (map[string]any, error) {
	var tree map[string]any
	jd := json.NewDecoder(bytes.NewReader(b))
	jd.UseNumber()
	if err := jd.Decode(&tree); err != nil {
		return nil, fmt.Errorf("decode template: %w", err)
	}
	return tree, nil
}
