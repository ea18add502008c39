package spec

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// maxExpandedNodes bounds the nodes a document may have once its aliases are expanded: a
// "billion laughs" document is refused quickly instead of being expanded.
const maxExpandedNodes = 200_000

// nodesError is a document over maxExpandedNodes, with the fix for its cause: its own size,
// or its aliases.
type nodesError struct{ msg, fix string }

func (e *nodesError) Error() string { return e.msg + " (fix: " + e.fix + ")" }

// expandAliases returns n with every alias replaced by a copy of what its anchor names and
// every merge key (<<) merged into its mapping, as kubectl reads YAML — so each part of the
// spec can be decoded on its own (an alias to an anchor in another list element works).
// A document over maxExpandedNodes or maxDepth as written is refused as too large or too
// deep, before any alias is expanded; one that aliases make larger or deeper, for its
// aliases.
func expandAliases(n *yaml.Node) (*yaml.Node, error) {
	if own := countNodes(n); own > maxExpandedNodes {
		return nil, &nodesError{msg: fmt.Sprintf("has %d YAML nodes, over the limit of %d", own, maxExpandedNodes),
			fix: "split the rollout into several specs, or let a clusters generator list the clusters instead of list elements"}
	}
	if tooDeep(n, 0) {
		return nil, &nodesError{msg: fmt.Sprintf("nests over %d levels deep", maxDepth), fix: "write it with fewer nested levels: a spec needs a few dozen"}
	}
	budget := maxExpandedNodes
	return expand(n, &budget, 0)
}

// maxDepth bounds how deep a document nests, as written and once its aliases are
// expanded: a spec needs a few dozen levels.
const maxDepth = 1000

// tooDeep reports whether n, at depth, nests past maxDepth as written (an alias is one
// node), looking no deeper than that.
func tooDeep(n *yaml.Node, depth int) bool {
	if depth > maxDepth {
		return true
	}
	for _, c := range n.Content {
		if tooDeep(c, depth+1) {
			return true
		}
	}
	return false
}

// countNodes counts the nodes of n as written (an alias is one node).
func countNodes(n *yaml.Node) int {
	c := 1
	for _, k := range n.Content {
		c += countNodes(k)
	}
	return c
}

func expand(n *yaml.Node, budget *int, depth int) (*yaml.Node, error) {
	if *budget--; *budget < 0 {
		return nil, &nodesError{msg: fmt.Sprintf("expanding its aliases makes over %d YAML nodes", maxExpandedNodes), fix: "use fewer, smaller aliases"}
	}
	if depth > maxDepth { // the document as written is not (tooDeep): its aliases are
		return nil, &nodesError{msg: fmt.Sprintf("expanding its aliases nests it over %d levels deep", maxDepth), fix: "use fewer aliases of aliases"}
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return nil, fmt.Errorf("line %d: alias *%s names no anchor", n.Line, n.Value)
		}
		return expand(n.Alias, budget, depth+1)
	}
	out := *n
	out.Anchor, out.Content = "", nil
	for _, c := range n.Content {
		e, err := expand(c, budget, depth+1)
		if err != nil {
			return nil, err
		}
		out.Content = append(out.Content, e)
	}
	if out.Kind == yaml.MappingNode {
		merge(&out)
	}
	return &out, nil
}

// merge applies the mapping's merge keys: keys of the merged mappings it does not have
// itself are added, earlier merged mappings first (YAML's merge key rules).
func merge(m *yaml.Node) {
	var pairs, merged []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Value == "<<" && (k.Tag == "!!merge" || k.Tag == "") {
			if v.Kind == yaml.SequenceNode {
				merged = append(merged, v.Content...)
			} else {
				merged = append(merged, v)
			}
			continue
		}
		pairs = append(pairs, k, v)
	}
	if len(merged) == 0 {
		return
	}
	has := map[string]bool{}
	for i := 0; i < len(pairs); i += 2 {
		has[pairs[i].Value] = true
	}
	for _, src := range merged {
		if src.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(src.Content); i += 2 {
			if k := src.Content[i]; !has[k.Value] {
				has[k.Value] = true
				pairs = append(pairs, k, src.Content[i+1])
			}
		}
	}
	m.Content = pairs
}
