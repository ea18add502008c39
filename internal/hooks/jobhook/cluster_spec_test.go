package jobhook

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// TestJobHookPerCluster: a cluster field anywhere in a job block (an image, an argument, a
// label value, the namespace) is accepted and makes the hook run once per cluster; each
// cluster's fill reaches every templated field and leaves the phase's own variables to the
// phase's fill.
func TestJobHookPerCluster(t *testing.T) {
	const c = `{name: c, image: x}`
	for _, tc := range []struct {
		block string
		want  func(*Block) string // the filled field that must name the cluster
	}{
		{`job: {spec: {template: {spec: {containers: [{name: c, image: 'smoke:{{ name }}'}]}}}}`,
			func(j *Block) string { return j.Spec.Template.Spec.Containers[0].Image }},
		{`job: {namespace: '{{metadata.labels.ns}}', spec: {template: {spec: {containers: [` + c + `]}}}}`,
			func(j *Block) string { return j.Namespace }},
		{`job: {spec: {template: {spec: {containers: [{name: c, image: x, args: [a, '--url={{server}}']}]}}}}`,
			func(j *Block) string { return j.Spec.Template.Spec.Containers[0].Args[1] }},
		{`job: {spec: {template: {metadata: {labels: {fail: '{{metadata.labels.fail}}'}}, spec: {containers: [` + c + `]}}}}`,
			func(j *Block) string { return j.Spec.Template.Labels["fail"] }},
	} {
		s, err := parseWithCheck("{name: j, type: job, " + tc.block + "}")
		if err != nil {
			t.Errorf("%s: refused: %v", tc.block, err)
			continue
		}
		h := s.Phases[0].Checks[0]
		if !h.PerCluster() {
			t.Errorf("%s: not per cluster", tc.block)
		}
		vars := map[string]string{"name": "dev-1", "server": "https://dev-1", "metadata.labels.ns": "dev-1", "metadata.labels.fail": "dev-1"}
		filled := h.Block.Fill(func(v string) string {
			return spec.HookPlaceholder.ReplaceAllStringFunc(v, func(m string) string {
				return vars[strings.TrimSpace(spec.HookPlaceholder.FindStringSubmatch(m)[1])]
			})
		}).(*Block)
		if got := tc.want(filled); !strings.Contains(got, "dev-1") {
			t.Errorf("%s: filled %q, want the cluster's value", tc.block, got)
		}
		if orig := tc.want(h.Block.(*Block)); !strings.Contains(orig, "{{") {
			t.Errorf("%s: the fill changed the declared hook: %q", tc.block, orig)
		}
	}
}

// TestJobHookPerClusterStillChecked: a per-cluster job block is held to every rule a
// per-phase one is (secret references, privileges).
func TestJobHookPerClusterStillChecked(t *testing.T) {
	for _, tc := range []struct{ block, want string }{
		{`job: {spec: {template: {spec: {containers: [{name: c, image: '{{name}}', env: [{name: P, value: '{{.secrets.db.password}}'}]}]}}}}`,
			`would write the secret's value into the Job`},
		{`job: {spec: {template: {spec: {hostNetwork: true, containers: [{name: c, image: '{{name}}'}]}}}}`,
			`job.spec.template.spec.hostNetwork`},
	} {
		if _, err := parseWithCheck("{name: j, type: job, " + tc.block + "}"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %q", tc.block, err, tc.want)
		}
	}
}
