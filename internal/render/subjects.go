package render

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// Subjects returns every child a revision generates as phases see it: the cluster's name,
// server, labels and annotations, the generator values, and the child's own labels.
func (r *Renderer) Subjects(ctx context.Context, rolloutName, rev string, body []byte, inv *inventory.Inventory) ([]targets.Child, error) {
	c, err := r.compiled(rev, body, rolloutName)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.memoFor(inv)
	if m.subjects == nil {
		if m.subjects, err = c.subjects(ctx, rev, inv); err != nil {
			return nil, err
		}
	}
	return slices.Clone(m.subjects), nil
}

// subjects computes Subjects for a compiled revision.
func (c *compiledRev) subjects(ctx context.Context, rev string, inv *inventory.Inventory) ([]targets.Child, error) {
	params, err := Generate(ctx, c.rev, inv)
	if err != nil {
		return nil, fmt.Errorf("revision %s: %w", rev, err)
	}
	out := make([]targets.Child, 0, len(params))
	for _, p := range params {
		name, labels, err := c.tmpl.Meta(ctx, p.Values)
		if err != nil {
			return nil, fmt.Errorf("revision %s: %w", rev, err)
		}
		s := targets.Child{Key: name, Subject: targets.Subject{Name: p.clusterName(name), AppLabels: labels, Values: values(p), Seed: rev}}
		if p.Cluster != nil {
			s.Server, s.Labels, s.Annotations = p.Cluster.Server, p.Cluster.Labels, p.Cluster.Annotations
			s.Absent = p.Cluster.Absent()
		}
		out = append(out, s)
	}
	return out, nil
}

// values are what targets[].values matches: a cluster's generator values (values.<k>, or
// the values map with goTemplate); a list element's string fields and its values map.
func values(p Params) map[string]string {
	out := map[string]string{}
	for k, v := range p.Values {
		switch x := v.(type) {
		case string:
			if rest, ok := strings.CutPrefix(k, "values."); ok {
				out[rest] = x
			} else if p.Cluster == nil {
				out[k] = x
			}
		case map[string]string:
			if k == "values" {
				maps.Copy(out, x)
			}
		case map[string]any:
			if k == "values" {
				for vk, vv := range x {
					if s, ok := vv.(string); ok {
						out[vk] = s
					}
				}
			}
		}
	}
	return out
}

// Changed reports, for each of the subjects the new revision generates (from Subjects),
// whether its rendered Application differs from what it runs now (a child that runs nothing
// has changed). Only changed children take part in a rollout.
func (r *Renderer) Changed(in Input, newRev string, newBody []byte, subjects []targets.Child) (map[string]bool, error) {
	out := make(map[string]bool, len(subjects))
	revisionOf := func(string) (string, string, bool) { return "", "", false }
	if in.State != nil {
		revisionOf = in.State.Assignments()
	}
	for _, s := range subjects {
		cur, _, ok := revisionOf(s.Key)
		if !ok {
			out[s.Key] = true
			continue
		}
		if cur == newRev {
			continue
		}
		differs, err := r.differs(in, newRev, newBody, cur, s.Key)
		if err != nil {
			return nil, err
		}
		out[s.Key] = differs
	}
	return out, nil
}

// differs reports whether child key renders differently at newRev than at cur, remembered
// per inventory (memo.go).
func (r *Renderer) differs(in Input, newRev string, newBody []byte, cur, key string) (bool, error) {
	curBody := in.State.Revisions[cur]
	c, err := r.compiled(newRev, newBody, in.Spec.Name)
	if err != nil {
		return false, err
	}
	memoKey := cur + "@" + string(spec.ContentTail(curBody)) + "\x00" + childNamespace(in) + "\x00" + key
	c.mu.Lock()
	d, ok := c.memoFor(in.Inventory).changed[memoKey]
	c.mu.Unlock()
	if ok {
		return d, nil
	}
	a, err := r.renderOne(in, newRev, newBody, key)
	if err != nil {
		return false, err
	}
	b, err := r.renderOne(in, cur, curBody, key)
	if err != nil {
		return false, err
	}
	d = !bytes.Equal(a, b)
	c.mu.Lock()
	if m := c.memoFor(in.Inventory); len(m.changed) < maxChanged {
		m.changed[memoKey] = d
	}
	c.mu.Unlock()
	return d, nil
}

// renderOne renders one child at a revision with neutral slots (so only the spec counts).
func (r *Renderer) renderOne(in Input, rev string, body []byte, key string) ([]byte, error) {
	if body == nil {
		return nil, fmt.Errorf("revision %q has no stored spec", rev)
	}
	c, err := r.compiled(rev, body, in.Spec.Name)
	if err != nil {
		return nil, err
	}
	byName, err := c.paramsFor(in.ctx(), in.Inventory)
	if err != nil {
		return nil, err
	}
	p, ok := byName[key]
	if !ok {
		return nil, nil // not generated at that revision: differs from anything generated
	}
	var b bytes.Buffer
	if err := c.tmpl.Render(in.ctx(), &b, c.values(p, state.Position{}), map[string]string{slotNS: childNamespace(in)}); err != nil {
		return nil, fmt.Errorf("render %s at revision %s: %w", key, rev, err)
	}
	if !c.pinEach {
		return b.Bytes(), nil
	}
	return pin(b.Bytes(), c.rev.Content) // a new commit changes what a pinned child deploys
}
