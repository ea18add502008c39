package render_test

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

const parentKeySpec = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: web, namespace: argocd}
spec:
  goTemplate: GO
  generators:
  - list:
      elements: [{cluster: a, url: 'https://10.9.9.1:6443', key: KEY}]
  template:
    metadata:
      name: 'web-CLUSTER'
      annotations: {ANNOTATIONS}
    spec:
      project: default
      source: {repoURL: https://git.example.com/web.git, path: web, targetRevision: main}
      destination: {server: 'SERVER', namespace: web}
PATCH`

// parentKeyRender parses and dry-renders parentKeySpec with annotations (YAML flow
// pairs), a templatePatch, in goTemplate syntax or fasttemplate's.
func parentKeyRender(t *testing.T, goTemplate bool, key, annotations, patch string) error {
	t.Helper()
	cluster, url := "{{cluster}}", "{{url}}"
	if goTemplate {
		cluster, url = "{{.cluster}}", "{{.url}}"
	}
	y := strings.NewReplacer("GO", map[bool]string{true: "true", false: "false"}[goTemplate], "KEY", key, "ANNOTATIONS", annotations,
		"CLUSTER", cluster, "SERVER", url, "PATCH", patch).Replace(parentKeySpec)
	s, err := spec.Parse("spec.yaml", []byte(y), targets.NewCache(4))
	if err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	return render.Check(s, &inventory.Inventory{})
}

// TestAChildNeverCarriesTheParentsAnnotations: the agent writes cmp-phase.io/status,
// rollout, phase, admitted, … on the parent, and argocd-notifications reads them; a spec
// author putting them on children could forge "Stopped" or "Completed" notices (issue 47).
// Written in the template, templated as a key, or added by a templatePatch, each is refused
// naming the key and the fix; a key of another domain passes.
func TestAChildNeverCarriesTheParentsAnnotations(t *testing.T) {
	patch := "  templatePatch: |\n    metadata:\n      annotations:\n        cmp-phase.io/rollout-id: 'r@{{.cluster}}'\n"
	type parentKeyCase struct {
		name, key, annotations, patch, want string
		goTemplate                          bool
	}
	cases := []parentKeyCase{
		{name: "a templated key", key: contract.ParentAdmitted, annotations: "'{{.key}}': 3/3", goTemplate: true,
			want: "child web-a: its annotation cmp-phase.io/admitted is an annotation of the parent (fix: remove it"},
		{name: "a templatePatch", key: "x", annotations: "a: b", patch: patch, goTemplate: true,
			want: "child web-a: its annotation cmp-phase.io/rollout-id is an annotation of the parent (fix: remove it"},
		{name: "a fasttemplate key", key: contract.ParentStatus, annotations: "'{{key}}': Stopped",
			want: "child web-a: its annotation cmp-phase.io/status is an annotation of the parent"},
		{name: "another domain's key", key: "x", annotations: "example.com/status: Stopped, notes: cmp-phase.io/status"},
	}
	for _, k := range contract.ParentAnnotationKeys {
		cases = append(cases, parentKeyCase{name: "written " + k, key: "x", annotations: k + ": forged",
			want: "template.metadata.annotations." + k + " is an annotation of the parent (fix: remove it from the template"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := parentKeyRender(t, tc.goTemplate, tc.key, tc.annotations, tc.patch)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
