package spec

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// phaseFields is Phase without its methods: the fields the JSON form takes as they are.
type phaseFields Phase

// phaseJSON is a phase as the plan carries it (and always did): the durations as Go
// duration strings, order and spread flat, tracks as its source. Its fields shadow
// Phase's of the same meaning, which are tagged `json:"-"`.
type phaseJSON struct {
	phaseFields
	WaitDuration     string `json:"waitDuration,omitempty"`
	ProgressDeadline string `json:"progressDeadline,omitempty"`
	BatchWait        string `json:"batchWait,omitempty"`
	Order            string `json:"order,omitempty"`
	Spread           string `json:"spread,omitempty"`
	Tracks           string `json:"tracks,omitempty"`
}

// MarshalJSON writes the phase as the plan carries it.
func (p Phase) MarshalJSON() ([]byte, error) {
	w := phaseJSON{phaseFields: phaseFields(p), Order: p.Ordering.Order, Spread: p.Ordering.Spread, Tracks: p.Tracks.Src}
	if p.WaitDuration > 0 {
		w.WaitDuration = p.WaitDuration.String()
	}
	switch {
	case p.ProgressDeadline == NoDeadline:
		w.ProgressDeadline = DeadlineNone
	case p.ProgressDeadline > 0:
		w.ProgressDeadline = p.ProgressDeadline.String()
	}
	if p.BatchWait > 0 {
		w.BatchWait = p.BatchWait.String()
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads a phase as the plan carries it; its expressions are not compiled yet
// (Compile).
func (p *Phase) UnmarshalJSON(b []byte) error {
	var w phaseJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*p = Phase(w.phaseFields)
	p.Ordering = targets.Ordering{Order: w.Order, Spread: w.Spread}
	p.Tracks = Tracks{Src: w.Tracks}
	var err error
	if p.WaitDuration, err = duration(w.WaitDuration); err != nil {
		return fmt.Errorf("phase %s waitDuration: %w", w.Name, err)
	}
	if w.ProgressDeadline == DeadlineNone {
		p.ProgressDeadline = NoDeadline
	} else if p.ProgressDeadline, err = duration(w.ProgressDeadline); err != nil {
		return fmt.Errorf("phase %s progressDeadline: %w", w.Name, err)
	}
	if p.BatchWait, err = duration(w.BatchWait); err != nil {
		return fmt.Errorf("phase %s batchWait: %w", w.Name, err)
	}
	return nil
}

// duration parses a Go duration string; "" is 0.
func duration(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	return time.ParseDuration(s)
}

// Compile compiles a phase read back from JSON: its targets, order and spread, windows and
// tracks, through exprs; and checks what the parser would have refused. An error names the
// field.
func (p *Phase) Compile(exprs *targets.Cache) error {
	for i := range p.Targets {
		if err := p.Targets[i].Compile(exprs); err != nil {
			return err
		}
	}
	if err := p.Ordering.Compile(exprs); err != nil {
		return err
	}
	if p.Approval != nil && p.Approval.Required < 1 {
		return fmt.Errorf("approval.required is %d, at least 1 opens a gate", p.Approval.Required)
	}
	if err := CompileWindows(p.Windows); err != nil {
		return err
	}
	return p.Tracks.Compile(exprs)
}
