package render

import (
	"context"
	"fmt"

	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render/tmpl"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

const (
	inClusterName   = "in-cluster"
	inClusterServer = "https://kubernetes.default.svc"
)

// Params is one generated parameter set and the cluster it came from (nil for list elements).
type Params struct {
	Values  map[string]any
	Cluster *inventory.Cluster
}

// Generate yields every parameter set of a revision, in generator then inventory order,
// exactly as the ApplicationSet list and clusters generators build them.
func Generate(ctx context.Context, rev *spec.Revision, inv *inventory.Inventory) ([]Params, error) {
	o := tmpl.Options{GoTemplate: rev.GoTemplate, GoTemplateOptions: rev.GoTemplateOptions}
	var out []Params
	for i, g := range rev.Generators {
		switch {
		case g.List != nil:
			ps, err := listParams(g.List, rev.GoTemplate)
			if err != nil {
				return nil, fmt.Errorf("generators[%d].list: %w", i, err)
			}
			out = append(out, ps...)
		case g.Clusters != nil:
			ps, err := clusterParams(ctx, g.Clusters, inv, o)
			if err != nil {
				return nil, fmt.Errorf("generators[%d].clusters: %w", i, err)
			}
			out = append(out, ps...)
		}
	}
	return out, nil
}

func listParams(g *spec.ListGenerator, goTemplate bool) ([]Params, error) {
	out := make([]Params, 0, len(g.Elements))
	for i, e := range g.Elements {
		if goTemplate {
			out = append(out, Params{Values: e})
			continue
		}
		p := map[string]any{}
		for k, v := range e {
			if k == "values" {
				vm, ok := v.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("elements[%d].values: must be a mapping", i)
				}
				for vk, vv := range vm {
					s, ok := vv.(string)
					if !ok {
						return nil, fmt.Errorf("elements[%d].values.%s: must be a string without goTemplate", i, vk)
					}
					p["values."+vk] = s
				}
				continue
			}
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("elements[%d].%s: must be a string without goTemplate", i, k)
			}
			p[k] = s
		}
		out = append(out, Params{Values: p})
	}
	return out, nil
}

func clusterParams(ctx context.Context, g *spec.ClustersGenerator, inv *inventory.Inventory, o tmpl.Options) ([]Params, error) {
	values := map[string]*tmpl.String{}
	for k, v := range g.Values {
		s, err := tmpl.CompileString(v, o)
		if err != nil {
			return nil, fmt.Errorf("values.%s: %w", k, err)
		}
		values[k] = s
	}
	out := make([]Params, 0, len(inv.Clusters)+1)
	hasInCluster := false
	in := newInterner()
	for i := range inv.Clusters {
		c := &inv.Clusters[i]
		hasInCluster = hasInCluster || c.Server == inClusterServer
		if !g.Selector.Matches(c.Labels) {
			continue
		}
		p := clusterValues(c, o.GoTemplate, in)
		if err := addValues(ctx, p, values, o.GoTemplate, in); err != nil {
			return nil, err
		}
		out = append(out, Params{Values: p, Cluster: c})
	}
	// Like Argo CD, an unselective generator also yields the local cluster when no Secret
	// describes it.
	if len(g.Selector.MatchLabels) == 0 && len(g.Selector.MatchExpressions) == 0 && !hasInCluster {
		p := map[string]any{"name": inClusterName, "nameNormalized": inClusterName, "server": inClusterServer, "project": ""}
		if err := addValues(ctx, p, values, o.GoTemplate, in); err != nil {
			return nil, err
		}
		out = append(out, Params{Values: p, Cluster: &inventory.Cluster{Name: inClusterName, Server: inClusterServer}})
	}
	return out, nil
}

// interner shares the strings every cluster's parameters repeat — the flat keys
// (metadata.labels.<k>, values.<k>) and the rendered values, mostly alike — so the
// parameters of a large fleet hold one copy of each, not one per cluster.
type interner struct {
	keys map[string]map[string]string // prefix → k → prefix+k
	vals map[string]string
}

func newInterner() *interner {
	return &interner{keys: map[string]map[string]string{}, vals: map[string]string{}}
}

// key is prefix+k, allocated once.
func (in *interner) key(prefix, k string) string {
	m := in.keys[prefix]
	if m == nil {
		m = map[string]string{}
		in.keys[prefix] = m
	}
	s, ok := m[k]
	if !ok {
		s = prefix + k
		m[k] = s
	}
	return s
}

// val is v, one copy per distinct value (bounded: a value per cluster is kept as is).
func (in *interner) val(v string) string {
	if s, ok := in.vals[v]; ok {
		return s
	}
	if len(in.vals) < maxInterned {
		in.vals[v] = v
	}
	return v
}

// maxInterned bounds the distinct values an interner shares.
const maxInterned = 1024

func clusterValues(c *inventory.Cluster, goTemplate bool, in *interner) map[string]any {
	p := make(map[string]any, 4+len(c.Annotations)+len(c.Labels)+1)
	p["name"], p["nameNormalized"], p["server"], p["project"] = c.Name, tmpl.SanitizeName(c.Name), c.Server, c.Project
	if goTemplate {
		meta := map[string]any{}
		if len(c.Annotations) > 0 {
			meta["annotations"] = c.Annotations
		}
		if len(c.Labels) > 0 {
			meta["labels"] = c.Labels
		}
		p["metadata"] = meta
		return p
	}
	for k, v := range c.Annotations {
		p[in.key("metadata.annotations.", k)] = v
	}
	for k, v := range c.Labels {
		p[in.key("metadata.labels.", k)] = v
	}
	return p
}

// addValues renders the generator's values against the cluster's parameters and adds them
// (values.<k> flat, or a values map with goTemplate), as Argo CD does.
func addValues(ctx context.Context, p map[string]any, values map[string]*tmpl.String, goTemplate bool, in *interner) error {
	if len(values) == 0 {
		return nil
	}
	rendered := make(map[string]string, len(values))
	for k, s := range values {
		v, err := s.Render(ctx, p)
		if err != nil {
			return fmt.Errorf("values.%s: %w", k, err)
		}
		rendered[k] = in.val(v)
	}
	if goTemplate {
		p["values"] = rendered
		return nil
	}
	// every value renders against the cluster's parameters alone, then all are added
	for k, v := range rendered {
		p[in.key("values.", k)] = v
	}
	return nil
}
