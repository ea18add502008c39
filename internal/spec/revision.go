package spec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Revision is everything a child's rendering depends on: generators, template, patch and
// templating switches. Phases, hooks and checks are not part of it: changing only them does
// not change any child, so it starts no rollout. The state stores one per revision in use.
type Revision struct {
	Generators                  []Generator     `json:"generators"`
	Template                    json.RawMessage `json:"template"`
	TemplatePatch               string          `json:"templatePatch,omitempty"`
	GoTemplate                  bool            `json:"goTemplate,omitempty"`
	GoTemplateOptions           []string        `json:"goTemplateOptions,omitempty"`
	PreserveResourcesOnDeletion bool            `json:"preserveResourcesOnDeletion,omitempty"`
}

// Revision returns the spec's revision, its canonical JSON and its id (a content hash).
// Parse computes it once; a parsed Spec is shared by concurrent renders and never changes.
func (s *Spec) Revision() (*Revision, []byte, string, error) {
	if s.revision != nil {
		return s.revision, s.revisionBody, s.revisionID, nil
	}
	return s.computeRevision()
}

func (s *Spec) computeRevision() (*Revision, []byte, string, error) {
	r := &Revision{
		Generators: s.Generators, Template: s.Template, TemplatePatch: s.TemplatePatch,
		GoTemplate: s.GoTemplate, GoTemplateOptions: s.GoTemplateOptions,
		PreserveResourcesOnDeletion: s.PreserveResourcesOnDeletion,
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, nil, "", fmt.Errorf("encode revision: %w", err)
	}
	return r, b, RevisionID(b), nil
}

// RevisionID is the id of a revision's canonical JSON.
func RevisionID(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// DecodeRevision decodes a stored revision and prepares its selectors.
func DecodeRevision(b []byte) (*Revision, error) {
	var r Revision
	// Numbers decode as float64, as Argo CD's list generator decodes its elements.
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&r); err != nil {
		return nil, fmt.Errorf("decode revision: %w", err)
	}
	for i := range r.Generators {
		if c := r.Generators[i].Clusters; c != nil {
			if err := c.Selector.Compile(); err != nil {
				return nil, fmt.Errorf("decode revision: generators[%d].clusters.selector: %w", i, err)
			}
		}
	}
	return &r, nil
}
