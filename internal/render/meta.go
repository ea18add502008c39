package render

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// tagOpen is how an unresolved ApplicationSet tag starts: ApplicationSet templating leaves
// a parameter no generator yields as it was written, as Argo CD does.
var tagOpen = []byte("{{")

// checkLabels refuses a child whose labels the API server would refuse, which only an
// unresolved tag left in a label can make (seed 001's list generator with
// {{metadata.labels.cluster/region}}, a parameter only a clusters generator yields): Argo
// CD's own ApplicationSet controller would fail to create it too. Only children holding an
// unresolved tag are decoded, so a render pays nothing for the check otherwise.
func checkLabels(child string, doc []byte) error {
	if !bytes.Contains(doc, tagOpen) {
		return nil
	}
	var app struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(doc, &app); err != nil {
		return fmt.Errorf("child %s: %w", child, err)
	}
	for _, k := range slices.Sorted(maps.Keys(app.Metadata.Labels)) {
		v := app.Metadata.Labels[k]
		if !contract.IsLabelValue(v) {
			return fmt.Errorf("child %s: template.metadata.labels.%s renders %q, not a valid label value (at most 63 letters, digits, '-', '_' or '.', beginning and ending with a letter or digit) (fix: give every generator's parameter set the parameter it names — a list element's key, or a clusters generator for metadata.labels.*)",
				child, k, v)
		}
	}
	return nil
}

// Check renders every child the spec generates for inv that a phase selects as if all were
// deployed at the spec's revision (and the others as the render does: unselected.go), and
// returns what such a render would refuse (validate's dry run: a spec validate accepts
// renders). inv may be empty for a spec of list generators only.
func Check(s *spec.Spec, inv *inventory.Inventory) error {
	_, err := CheckReport(s, inv)
	return err
}

// CheckReport is Check, also returning the children the render leaves out (child → why):
// no phase selects them, nothing deploys them, and their template cannot render.
func CheckReport(s *spec.Spec, inv *inventory.Inventory) (map[string]string, error) {
	_, body, id, err := s.Revision()
	if err != nil {
		return nil, err
	}
	r := New(1)
	c, err := r.compiled(id, body, s.Name)
	if err != nil {
		return nil, err
	}
	byName, err := c.paramsFor(context.Background(), inv)
	if err != nil {
		return nil, err
	}
	subjects, err := r.Subjects(context.Background(), s.Name, id, body, inv)
	if err != nil {
		return nil, err
	}
	var children []string
	for _, sub := range subjects {
		if _, ok := byName[sub.Key]; ok && (len(s.Phases) == 0 || selected(s.Phases, sub)) {
			children = append(children, sub.Key)
		}
	}
	slices.Sort(children)
	st := &state.State{Schema: state.Schema, Generation: 1, Deployed: id,
		Children: slices.Compact(children), Revisions: map[string]json.RawMessage{id: body}}
	_, leftOut, err := r.render(Input{Spec: s, Inventory: inv, State: st, Env: Env{StateNamespace: contract.DefaultNamespace, PhaseGen: 1}})
	return leftOut, err
}
