package jobhook

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// TestAClusterValueIsNeverAJobContainersOption: an element of a container's command or
// args is one argv element (hooks.Arg): a cluster value that would start it with - is
// refused, naming the field; one after literal text, or in another field, is not.
func TestAClusterValueIsNeverAJobContainersOption(t *testing.T) {
	s, err := parseWithCheck(`{name: j, type: job, job: {spec: {template: {spec: {containers: [{name: c, image: x, command: [smoke], args: [run, '{{name}}', '--env={{metadata.labels.env}}']}]}}}}}`)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Phases[0].Checks[0]
	fill := func(v string) (*Block, error) {
		vars := hooks.PhaseVars("guestbook", "argocd", "prod")
		vars["name"], vars["metadata.labels.env"] = v, v
		got, _, err := hooks.Template(h, vars, nil)
		if err != nil {
			return nil, err
		}
		return got.Block.(*Block), nil
	}
	for _, v := range []string{"--kubeconfig=/etc/x", "-v"} {
		if _, err := fill(v); err == nil || !strings.Contains(err.Error(), "hook j: job.spec.template.spec.containers[0].args[1]: cluster field {{name}}: value starts with -") {
			t.Errorf("%q: %v", v, err)
		}
	}
	for _, v := range []string{"prod-1", "a b\nc"} {
		if b, err := fill(v); err != nil || strings.Join(b.Spec.Template.Spec.Containers[0].Args, "|") != "run|"+v+"|--env="+v {
			t.Errorf("%q: %+v %v", v, b, err)
		}
	}
	ns := spec.Hook{Name: "j", Type: "job", Block: &Block{Namespace: "{{name}}"}}
	if _, _, err := hooks.Template(ns, map[string]string{"name": "-x"}, nil); err != nil {
		t.Errorf("a namespace is not an argument: %v", err)
	}
}
