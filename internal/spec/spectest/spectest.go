package spectest

import (
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	_ "github.com/cmp-phase/cmp-phase/internal/spec/appset" // the template check, as the binaries link it
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// Base is a spec of two phases over a clusters generator: canary (10%) and rest (one at a
// time). A hook kind's tests add their hook to it.
const Base = `apiVersion: argoproj.io/v1alpha1
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

// ParseWithCheck parses Base with hook (YAML flow style) as its first phase's check (line 14).
func ParseWithCheck(hook string) (*spec.Spec, error) {
	src := strings.Replace(Base, "        percentage: 10\n", "        percentage: 10\n        checks:\n        - "+hook+"\n", 1)
	return spec.Parse("spec.yaml", []byte(src), targets.NewCache(8))
}
