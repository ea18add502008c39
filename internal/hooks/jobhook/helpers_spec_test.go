package jobhook

import (
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

func init() { hooks.Register(Kind) } // as internal/hooks/all does, which this package's tests cannot import

// base is a spec of two phases; parseWithCheck gives the first a check (line 14).
const base = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: demo
spec:
  generators:
  - clusters: {}
    deploymentStrategy:
      type: phaseDeployment
      phases:
      - name: canary
        percentage: 10
        targets:
        - expr: 'true'
      - name: rest
        maxUpdate: 1
        targets:
        - matchExpressions:
          - {key: env, operator: Exists}
  template:
    metadata:
      name: '{{name}}-demo'
    spec:
      project: default
      source: {repoURL: https://example.com/x.git, path: p}
      destination: {server: '{{server}}', namespace: demo}
`

// parseWithCheck parses a spec whose first phase has the check hook (YAML flow style).
func parseWithCheck(hook string) (*spec.Spec, error) {
	src := strings.Replace(base, "        percentage: 10\n", "        percentage: 10\n        checks:\n        - "+hook+"\n", 1)
	return spec.Parse("spec.yaml", []byte(src), targets.NewCache(8))
}
