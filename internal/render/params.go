package render

import (
	"fmt"
	"maps"

	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/tmpl"
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
func Generate(rev *spec.Revision, inv *inventory.Inventory) ([]Params, error) {
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
			ps, err := clusterParams(g.Clusters, inv, o)
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

func clusterParams(g *spec.ClustersGenerator, inv *inventory.Inventory, o tmpl.Options) ([]Params, error) {
	values := map[string]*tmpl.String{}
	for k, v := range g.Values {
		s, err := tmpl.CompileString(v, o)
		if err != nil {
			return nil, fmt.Errorf("values.%s: %w", k, err)
		}
		values[k] = s
	}
	var out []Params
	hasInCluster := false
	for i := range inv.Clusters {
		c := &inv.Clusters[i]
		hasInCluster = hasInCluster || c.Server == inClusterServer
		if !g.Selector.Matches(c.Labels) {
			continue
		}
		p := clusterValues(c, o.GoTemplate)
		if err := addValues(p, values, o.GoTemplate); err != nil {
			return nil, err
		}
		out = append(out, Params{Values: p, Cluster: c})
	}
	// Like Argo CD, an unselective generator also yields the local cluster when no Secret
	// describes it.
	if len(g.Selector.MatchLabels) == 0 && len(g.Selector.MatchExpressions) == 0 && !hasInCluster {
		p := map[string]any{"name": inClusterName, "nameNormalized": inClusterName, "server": inClusterServer, "project": ""}
		if err := addValues(p, values, o.GoTemplate); err != nil {
			return nil, err
		}
		out = append(out, Params{Values: p, Cluster: &inventory.Cluster{Name: inClusterName, Server: inClusterServer}})
	}
	return out, nil
}

func clusterValues(c *inventory.Cluster, goTemplate bool) map[string]any {
	p := map[string]any{
		"name": c.Name, "nameNormalized": tmpl.SanitizeName(c.Name), "server": c.Server, "project": c.Project,
	}
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
		p["metadata.annotations."+k] = v
	}
	for k, v := range c.Labels {
		p["metadata.labels."+k] = v
	}
	return p
}

// addValues renders the generator's values against the cluster's parameters and adds them
// (values.<k> flat, or a values map with goTemplate), as Argo CD does.
func addValues(p map[string]any, values map[string]*tmpl.String, goTemplate bool) error {
	if len(values) == 0 {
		return nil
	}
	rendered := map[string]string{}
	for k, s := range values {
		v, err := s.Render(p)
		if err != nil {
			return fmt.Errorf("values.%s: %w", k, err)
		}
		rendered[k] = v
	}
	if goTemplate {
		p["values"] = rendered
		return nil
	}
	tmp := map[string]any{}
	for k, v := range rendered {
		tmp["values."+k] = v
	}
	maps.Copy(p, tmp)
	return nil
}
