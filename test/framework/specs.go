package framework

import "strings"

// PhasedSpec is the spec the e2e tests and the demo roll out: a clusters generator over the
// loopback fleet, phases dev → staging → prod (50% batches), children that deploy
// <rollout>/<version> into their cluster's namespace with automated sync. In the
// phaseDeployment dialect a size bounds what a phase admits in all, so "prod in 50% batches"
// is two phases over the same targets: half, then the rest.
func PhasedSpec(rollout, version, repoURL string) string {
	return strings.NewReplacer("ROLLOUT", rollout, "VERSION", version, "REPO", repoURL).Replace(phasedSpec)
}

// Workload is the ConfigMap a PhasedSpec child deploys: named after the rollout, holding
// the version, so a test can read which version each cluster runs.
func Workload(rollout, version string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + rollout + "\ndata:\n  version: " + version + "\n"
}

// DegradedWorkload is Workload, Degraded (by the harness's health check) in the cluster
// whose namespace is degradedIn and Healthy elsewhere.
func DegradedWorkload(rollout, version, degradedIn string) string {
	return Workload(rollout, version) + "  degradedIn: " + degradedIn + "\n"
}

// ProgressingWorkload is Workload, Progressing for ever (by the harness's health check)
// in the cluster whose namespace is progressingIn and Healthy elsewhere: a member that
// syncs but never becomes Healthy.
func ProgressingWorkload(rollout, version, progressingIn string) string {
	return Workload(rollout, version) + "  progressingIn: " + progressingIn + "\n"
}

const phasedSpec = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: ROLLOUT
  namespace: argocd
spec:
  generators:
  - clusters:
      selector:
        matchLabels:
          argocd.argoproj.io/secret-type: cluster
      values:
        version: VERSION
    deploymentStrategy:
      type: phaseDeployment
      phases:
      - name: dev
        targets:
        - matchExpressions:
          - {key: env, operator: In, values: [dev]}
      - name: staging
        targets:
        - matchExpressions:
          - {key: env, operator: In, values: [staging]}
        waitDuration: 10s
        spread: labels.env   # one value among staging's members: name order, as without it
      - name: prod-half
        maxUpdate: 50%
        targets:
        - expr: 'labels.env == "prod"'
        onFailure:
          action: rollback
      - name: prod
        targets:
        - expr: 'labels.env == "prod"'
        onFailure:
          action: rollback
  template:
    metadata:
      name: 'ROLLOUT-{{name}}'
    spec:
      project: default
      source:
        repoURL: REPO
        targetRevision: HEAD
        path: 'ROLLOUT/{{values.version}}'
      destination:
        server: '{{server}}'
        namespace: '{{name}}'
      syncPolicy:
        automated: {}
`

// FleetRepoURL is the repository FleetSpec's children deploy from.
const FleetRepoURL = "https://git.example.com/fleet.git"

// FleetSpec is the fleet benchmarks' spec (test/bench's BenchmarkFleet, the sidecar's
// BenchmarkShardRender): one child per cluster deploying the version's directory of
// FleetRepoURL, in three phases of prod — 1%, 10% spread by region, all.
func FleetSpec(version string) string {
	return strings.ReplaceAll(fleetSpec, "VERSION", version)
}

const fleetSpec = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: fleet
  namespace: argocd
spec:
  generators:
  - clusters:
      selector:
        matchLabels:
          argocd.argoproj.io/secret-type: cluster
      values:
        version: VERSION
    deploymentStrategy:
      type: phaseDeployment
      phases:
      - name: canary
        maxUpdate: 1%
        targets:
        - expr: 'labels.env == "prod"'
      - name: early
        maxUpdate: 10%
        targets:
        - expr: 'labels.env == "prod"'
        spread: labels.region
      - name: all
        targets:
        - expr: 'labels.env == "prod"'
  template:
    metadata:
      name: 'fleet-{{name}}'
    spec:
      project: default
      source:
        repoURL: https://git.example.com/fleet.git
        targetRevision: HEAD
        path: 'fleet/workload/{{values.version}}'
      destination:
        server: '{{server}}'
        namespace: fleet
      syncPolicy:
        automated: {}
`
