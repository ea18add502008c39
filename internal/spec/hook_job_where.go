package spec

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// onControlCluster refuses a job block that templates a cluster field anywhere (it would
// run once per cluster): a job hook runs once per phase on the control cluster. Reaching
// each cluster with Argo CD's own credentials would bypass the AppProject (any registered
// cluster, any namespace), and exec-based cluster credentials would not work from the agent.
func (d *dec) onControlCluster(n *yaml.Node, path string) {
	field, name, at := clusterField(n, path)
	if at == nil {
		return
	}
	d.fail(at, field, "a job hook runs once per phase on the control cluster; use an http or command check per cluster, or a per-phase Job",
		"{{%s}} would run the Job per cluster", name)
}

// clusterField is the first scalar under n (path) whose value has a cluster placeholder:
// its path, the placeholder and its node; nil when there is none.
func clusterField(n *yaml.Node, path string) (string, string, *yaml.Node) {
	switch n.Kind {
	case yaml.ScalarNode:
		for _, m := range HookPlaceholder.FindAllStringSubmatch(n.Value, -1) {
			if name := strings.TrimSpace(m[1]); ClusterVar(name) {
				return path, name, n
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if f, name, at := clusterField(n.Content[i+1], path+"."+n.Content[i].Value); at != nil {
				return f, name, at
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if f, name, at := clusterField(c, fmt.Sprintf("%s[%d]", path, i)); at != nil {
				return f, name, at
			}
		}
	}
	return "", "", nil
}
