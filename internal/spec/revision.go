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
	// Content is set when children deploy from the parent's repository (pinCommits): what
	// they deploy and the commit they are pinned to. Always the last field (see WithContent).
	Content *Content `json:"content,omitempty"`
}

// Content is the part of a revision that comes from the parent's repository: a digest of
// the files the children deploy from it, and the commit the children are pinned to.
type Content struct {
	// Digest covers every file the children deploy from the parent's repository.
	Digest string `json:"digest"`
	// Commit is the full SHA every pinned source of a child at this revision deploys.
	Commit string `json:"commit"`
	// RepoURL is the parent's repository; a child source from it at one of Refs is pinned.
	RepoURL string   `json:"repoURL"`
	Refs    []string `json:"refs"`
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

// WithContent returns the revision of a spec-only revision body (from Revision) whose
// children deploy c: its canonical JSON and id. The id covers the spec and c.Digest, not
// the commit: a commit that changes nothing a child deploys is the same revision, and its
// children stay pinned to the commit they run.
func WithContent(specBody []byte, c Content) ([]byte, string, error) {
	cb, err := json.Marshal(c)
	if err != nil {
		return nil, "", fmt.Errorf("encode revision: %w", err)
	}
	if len(cb) > maxContentJSON-16 {
		return nil, "", fmt.Errorf("encode revision: the repository URL and refs take %d bytes, over the limit of %d (fix: shorten the parent's repoURL)", len(cb), maxContentJSON-16)
	}
	if len(specBody) < 2 || specBody[len(specBody)-1] != '}' {
		return nil, "", fmt.Errorf("encode revision: not a JSON object")
	}
	body := make([]byte, 0, len(specBody)+len(cb)+16)
	body = append(append(append(body, specBody[:len(specBody)-1]...), `,"content":`...), cb...)
	return append(body, '}'), contentID(specBody, c.Digest), nil
}

func contentID(specBody []byte, digest string) string {
	return RevisionID(append(append(bytes.Clone(specBody), "\ncontent:"...), digest...))
}

// SplitContent separates a revision body into its spec-only body (the id of a revision
// without content) and its content, nil when it has none.
func SplitContent(body []byte) ([]byte, *Content, error) {
	var r struct {
		Content *Content `json:"content"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, nil, fmt.Errorf("decode revision: %w", err)
	}
	if r.Content == nil {
		return body, nil, nil
	}
	i := bytes.LastIndex(body, []byte(`,"content":`))
	if i < 0 {
		return nil, nil, fmt.Errorf("decode revision: content is not the last field")
	}
	specBody := append(bytes.Clone(body[:i]), '}')
	if again, _, err := WithContent(specBody, *r.Content); err != nil || !bytes.Equal(again, body) {
		return nil, nil, fmt.Errorf("decode revision: content is not in canonical form")
	}
	return specBody, r.Content, nil
}

// maxContentJSON bounds a revision's encoded content, so its tail is found in bounded time.
const maxContentJSON = 8 << 10

// ContentTail is the encoded content at the end of a revision body, nil when it has none.
// It reads at most the body's last maxContentJSON bytes (content is its last field).
func ContentTail(body []byte) []byte {
	tail := body[max(0, len(body)-maxContentJSON):]
	i := bytes.LastIndex(tail, []byte(`,"content":`))
	if i < 0 || tail[len(tail)-1] != '}' { // i ≥ 0: tail is not empty
		return nil
	}
	return tail[i+len(`,"content":`) : len(tail)-1]
}

// CommitOf is the commit a revision body pins its children to, "" when it has no content.
func CommitOf(body []byte) string {
	var c Content
	if t := ContentTail(body); t == nil || json.Unmarshal(t, &c) != nil {
		return ""
	}
	return c.Commit
}

// IDOf is the id of a stored revision body (spec-only or with content).
func IDOf(body []byte) (string, error) {
	specBody, c, err := SplitContent(body)
	if err != nil {
		return "", err
	}
	if c == nil {
		return RevisionID(specBody), nil
	}
	return contentID(specBody, c.Digest), nil
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
