//go:build e2e

package bench

import (
	"context"
	"fmt"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/test/framework"
)

// fleet is six loopback clusters in three steps of two.
var fleet = []framework.Cluster{
	{Name: "dev-1", Labels: map[string]string{"env": "dev"}},
	{Name: "dev-2", Labels: map[string]string{"env": "dev"}},
	{Name: "staging-1", Labels: map[string]string{"env": "staging"}},
	{Name: "staging-2", Labels: map[string]string{"env": "staging"}},
	{Name: "prod-1", Labels: map[string]string{"env": "prod"}},
	{Name: "prod-2", Labels: map[string]string{"env": "prod"}},
}

// steps are the three steps every setup walks, in order, each at maxUpdate 50%.
var steps = []string{"dev", "staging", "prod"}

func stepOf(c framework.Cluster) int {
	for i, s := range steps {
		if c.Labels["env"] == s {
			return i
		}
	}
	return -1
}

// setup is one way of rolling a commit out over the fleet.
type setup struct {
	name   string // also the prefix of its children and the directory it deploys
	kind   string // rollingsync (Argo CD's), cmp-phase-rollingsync, cmp-phase-phases, floor
	create func(ctx context.Context, e *framework.Env, s *setup) error
	floor  *floorClient // the floor's driver: argocd-server's API
}

func (s *setup) child(c framework.Cluster) string { return s.name + "-" + c.Name }

// workloadPath is the file every commit of a run changes.
func (s *setup) workloadPath() string { return s.name + "/workload/cm.yaml" }

func (s *setup) workload(version string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + s.name + "\ndata:\n  version: " + version + "\n"
}

func (s *setup) phased() bool { return strings.HasPrefix(s.kind, "cmp-phase") }

// setups are the peer, cmp-phase in both of its dialects and the floor (floor_test.go). Every setup's Applications
// carry manifest-generate-paths (RollingSync's children their workload, a parent its spec
// and its children's workload), as one would in a repository many teams share: a push
// then refreshes only the setup it concerns, not every Application of the stack.
func setups() []*setup {
	return []*setup{
		{name: "rs", kind: "rollingsync", create: createRollingSync},
		{name: "prs", kind: "cmp-phase-rollingsync", create: createPhased(rollingSyncDialect)},
		{name: "pph", kind: "cmp-phase-phases", create: createPhased(phasesDialect)},
		{name: "fl", kind: "floor", create: createFloor},
	}
}

// createRollingSync makes Argo CD's own ApplicationSet with RollingSync over the fleet.
func createRollingSync(ctx context.Context, e *framework.Env, s *setup) error {
	var elements strings.Builder
	for _, c := range e.Clusters {
		fmt.Fprintf(&elements, "      - {cluster: %s, url: %q, env: %s}\n", c.Name, c.Server, c.Labels["env"])
	}
	var stepsYAML strings.Builder
	for _, st := range steps {
		fmt.Fprintf(&stepsYAML, "      - matchExpressions: [{key: env, operator: In, values: [%s]}]\n        maxUpdate: 50%%\n", st)
	}
	y := `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: NAME, namespace: argocd}
spec:
  goTemplate: true
  generators:
  - list:
      elements:
` + elements.String() + `  strategy:
    type: RollingSync
    rollingSync:
      steps:
` + stepsYAML.String() + `  template:
    metadata:
      name: 'NAME-{{.cluster}}'
      labels: {env: '{{.env}}'}
      annotations: {argocd.argoproj.io/manifest-generate-paths: .}
    spec:
      project: default
      source: {repoURL: 'REPO', targetRevision: HEAD, path: NAME/workload}
      destination: {server: '{{.url}}', namespace: '{{.cluster}}'}
      syncPolicy: {automated: {}}
`
	y = strings.NewReplacer("NAME", s.name, "REPO", e.Git.URL).Replace(y)
	var set v1alpha1.ApplicationSet
	if err := sigsyaml.Unmarshal([]byte(y), &set); err != nil {
		return fmt.Errorf("applicationset: %w", err)
	}
	if _, err := e.Git.Commit(s.name+": v0", map[string]string{s.workloadPath(): s.workload("v0")}); err != nil {
		return err
	}
	_, err := e.Argo.ArgoprojV1alpha1().ApplicationSets("argocd").Create(ctx, &set, metav1.CreateOptions{})
	return err
}

// createPhased commits a cmp-phase spec of the given dialect and makes its parent.
func createPhased(dialect string) func(ctx context.Context, e *framework.Env, s *setup) error {
	return func(ctx context.Context, e *framework.Env, s *setup) error {
		spec := strings.NewReplacer("NAME", s.name, "REPO", e.Git.URL).Replace(phasedHead + dialect + phasedTemplate)
		files := map[string]string{s.name + "/app/appset.yaml": spec, s.workloadPath(): s.workload("v0")}
		if _, err := e.Git.Commit(s.name+": v0", files); err != nil {
			return err
		}
		return e.NewParent(ctx, s.name, s.name+"/app", 0, framework.WithGeneratePaths(".;../workload"))
	}
}

const phasedHead = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: NAME
  namespace: argocd
spec:
  generators:
  - clusters:
      selector:
        matchLabels:
          argocd.argoproj.io/secret-type: cluster
`

// rollingSyncDialect is Argo CD's RollingSync, read by cmp-phase.
const rollingSyncDialect = `  strategy:
    type: RollingSync
    rollingSync:
      steps:
      - matchExpressions: [{key: env, operator: In, values: [dev]}]
        maxUpdate: 50%
      - matchExpressions: [{key: env, operator: In, values: [staging]}]
        maxUpdate: 50%
      - matchExpressions: [{key: env, operator: In, values: [prod]}]
        maxUpdate: 50%
`

// phasesDialect is the same steps as seed 000's phases: a size bounds what a phase admits
// in all, so "50% at a time" is a half phase, then the rest.
const phasesDialect = `    deploymentStrategy:
      type: phaseDeployment
      phases:
      - {name: dev-half, maxUpdate: 50%, targets: [{matchExpressions: [{key: env, operator: In, values: [dev]}]}]}
      - {name: dev, targets: [{matchExpressions: [{key: env, operator: In, values: [dev]}]}]}
      - {name: staging-half, maxUpdate: 50%, targets: [{matchExpressions: [{key: env, operator: In, values: [staging]}]}]}
      - {name: staging, targets: [{matchExpressions: [{key: env, operator: In, values: [staging]}]}]}
      - {name: prod-half, maxUpdate: 50%, targets: [{matchExpressions: [{key: env, operator: In, values: [prod]}]}]}
      - {name: prod, targets: [{matchExpressions: [{key: env, operator: In, values: [prod]}]}]}
`

const phasedTemplate = `  template:
    metadata:
      name: 'NAME-{{name}}'
      labels: {env: '{{metadata.labels.env}}'}
    spec:
      project: default
      source:
        repoURL: REPO
        targetRevision: HEAD
        path: NAME/workload
      destination:
        server: '{{server}}'
        namespace: '{{name}}'
      syncPolicy:
        automated: {}
`
