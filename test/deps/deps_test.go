package deps

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/cmp-phase/cmp-phase/"

// forbidden are the module paths the engine's and the parser's graphs may not hold.
var forbidden = []string{"k8s.io/client-go", "github.com/argoproj/argo-cd"}

// TestTheEngineLinksNeitherClientGoNorArgoCD: go list -deps of the engine, the spec
// package, its template seam and the plan holds no package of client-go or Argo CD.
func TestTheEngineLinksNeitherClientGoNorArgoCD(t *testing.T) {
	for _, pkg := range []string{"internal/rollout", "internal/spec", "internal/spec/templatecheck", "internal/plan"} {
		for _, dep := range deps(t, pkg) {
			for _, f := range forbidden {
				if dep == f || strings.HasPrefix(dep, f+"/") {
					t.Errorf("%s links %s", pkg, dep)
				}
			}
		}
	}
}

// TestTheTemplateSeamIsALeaf: templatecheck, which the parser and tmpl both import, imports
// the standard library only.
func TestTheTemplateSeamIsALeaf(t *testing.T) {
	for _, dep := range deps(t, "internal/spec/templatecheck") {
		if first, _, _ := strings.Cut(dep, "/"); strings.Contains(first, ".") && dep != module+"internal/spec/templatecheck" {
			t.Errorf("internal/spec/templatecheck links %s", dep)
		}
	}
}

// TestTheRendererChecksTemplates: the renderer, through which the sidecar, the agent and
// the CLI parse specs, links the template check.
func TestTheRendererChecksTemplates(t *testing.T) {
	for _, dep := range deps(t, "internal/render") {
		if dep == module+"internal/spec/appset" {
			return
		}
	}
	t.Errorf("internal/render does not link internal/spec/appset: the specs it parses would go unchecked")
}

// planImports are the module's packages internal/plan may import. Issue 48 wants the plan
// a leaf of the standard library and contract; spec and targets (the phase type and its
// expressions) are left to go, jsoncost is standard library only.
var planImports = []string{"internal/contract", "internal/jsoncost", "internal/spec", "internal/targets"}

// TestThePlanImportsNoKubernetesTypes: internal/plan imports the standard library and
// planImports only; in particular no Kubernetes API type (Decode reads plain maps).
func TestThePlanImportsNoKubernetesTypes(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, module+"internal/plan").Output()
	if err != nil {
		t.Fatalf("go list internal/plan: %v", err)
	}
	for _, imp := range strings.Fields(string(out)) {
		first, _, _ := strings.Cut(imp, "/")
		if strings.Contains(first, ".") && !slices.Contains(planImports, strings.TrimPrefix(imp, module)) {
			t.Errorf("internal/plan imports %s", imp)
		}
	}
}

// deps is go list -deps of the module's package pkg.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", module+pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}
