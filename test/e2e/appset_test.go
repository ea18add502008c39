//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestHarnessRunsRollingSync proves the harness's argocd-applicationset-controller runs with
// progressive syncs: a RollingSync ApplicationSet over the loopback fleet generates one
// Application per cluster and reports per-application rollout status. The project is
// compared side by side with RollingSync on this same controller.
func TestHarnessRunsRollingSync(t *testing.T) {
	ctx := context.Background()
	var elements strings.Builder
	for _, c := range env.Clusters {
		fmt.Fprintf(&elements, "      - {cluster: %s, url: %q, env: %s}\n", c.Name, c.Server, c.Labels["env"])
	}
	y := `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: rolling, namespace: argocd}
spec:
  goTemplate: true
  generators:
  - list:
      elements:
` + elements.String() + `  strategy:
    type: RollingSync
    rollingSync:
      steps:
      - matchExpressions: [{key: env, operator: In, values: [dev]}]
      - matchExpressions: [{key: env, operator: In, values: [staging]}]
      - matchExpressions: [{key: env, operator: In, values: [prod]}]
        maxUpdate: 50%
  template:
    metadata:
      name: 'rolling-{{.cluster}}'
      labels: {env: '{{.env}}'}
    spec:
      project: default
      source: {repoURL: '` + env.Git.URL + `', targetRevision: HEAD, path: rolling}
      destination: {server: '{{.url}}', namespace: '{{.cluster}}'}
`
	var set v1alpha1.ApplicationSet
	if err := sigsyaml.Unmarshal([]byte(y), &set); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Git.Commit("rolling workload", map[string]string{"rolling/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rolling\ndata:\n  v: \"1\"\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Argo.ArgoprojV1alpha1().ApplicationSets(framework.ArgoNamespace).Create(ctx, &set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitFor(t, 2*time.Minute, "RollingSync to generate an Application per cluster and track them", func(ctx context.Context) (bool, string) {
		s, err := env.Argo.ArgoprojV1alpha1().ApplicationSets(framework.ArgoNamespace).Get(ctx, "rolling", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, c := range env.Clusters {
			if _, err := env.App(ctx, "rolling-"+c.Name); err != nil {
				return false, err.Error()
			}
		}
		return len(s.Status.ApplicationStatus) == len(env.Clusters), fmt.Sprintf("%d application statuses", len(s.Status.ApplicationStatus))
	})
}
