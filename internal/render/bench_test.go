package render_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/applicationset/controllers/template"
	"github.com/argoproj/argo-cd/v3/applicationset/utils"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// benchSpec is a realistic child: helm values, labels and annotations from cluster labels.
const benchSpec = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: bench, namespace: argocd}
spec:
  GOTEMPLATE
  generators:
  - clusters:
      selector: {matchLabels: {env: prod}}
      values: {chart: "4.2.0"}
  template:
    metadata:
      name: 'NAME'
      labels: {env: 'ENV', region: 'REGION', team: payments}
      annotations: {notifications.argoproj.io/subscribe.on-sync-failed.slack: payments-alerts}
    spec:
      project: payments
      source:
        repoURL: https://git.example.com/payments/charts.git
        chart: payments-api
        targetRevision: 'CHART'
        helm:
          releaseName: 'NAME'
          valuesObject:
            cluster: 'NAME'
            region: 'REGION'
            replicas: 3
            ingress: {enabled: true, host: 'HOST'}
      destination: {server: 'SERVER', namespace: payments}
      syncPolicy:
        automated: {prune: true, selfHeal: true}
        syncOptions: [CreateNamespace=true, ServerSideApply=true]
`

func benchYAML(goTemplate bool) string {
	r := strings.NewReplacer("GOTEMPLATE", "", "NAME", "payments-{{name}}", "ENV", "{{metadata.labels.env}}",
		"REGION", "{{metadata.labels.region}}", "CHART", "{{values.chart}}", "HOST", "{{name}}.payments.example.com", "SERVER", "{{server}}")
	if goTemplate {
		r = strings.NewReplacer("GOTEMPLATE", "goTemplate: true", "NAME", "payments-{{.name}}", "ENV", `{{index .metadata.labels "env"}}`,
			"REGION", `{{index .metadata.labels "region"}}`, "CHART", "{{.values.chart}}", "HOST", "{{.name}}.payments.example.com", "SERVER", "{{.server}}")
	}
	return r.Replace(benchSpec)
}

func benchInventory(n int) *inventory.Inventory {
	inv := &inventory.Inventory{}
	for i := range n {
		inv.Clusters = append(inv.Clusters, inventory.Cluster{
			Name: fmt.Sprintf("prod-%05d", i), Server: fmt.Sprintf("https://10.%d.%d.%d:6443", i/65536, i/256%256, i%256),
			Labels: map[string]string{contract.LabelSecretType: contract.SecretTypeCluster, "env": "prod", "region": []string{"eu-west-1", "us-east-1"}[i%2]},
		})
	}
	return inv
}

type benchCase struct {
	spec  *spec.Spec
	inv   *inventory.Inventory
	st    *state.State
	app   *v1alpha1.Application // Argo CD's template application
	set   v1alpha1.ApplicationSet
	param []map[string]any
}

// newBenchCase prepares the same template and parameters for both renderers; the state has
// everything deployed on the old revision and a rollout admitting half the fleet to the new one.
func newBenchCase(b *testing.B, n int, goTemplate bool) benchCase {
	b.Helper()
	y := benchYAML(goTemplate)
	s, err := spec.Parse("bench.yaml", []byte(y), targets.NewCache(8))
	if err != nil {
		b.Fatal(err)
	}
	old, err := spec.Parse("bench.yaml", []byte(strings.Replace(y, `"4.2.0"`, `"4.1.0"`, 1)), targets.NewCache(8))
	if err != nil {
		b.Fatal(err)
	}
	rev, body, id, err := s.Revision()
	if err != nil {
		b.Fatal(err)
	}
	_, oldBody, oldID, _ := old.Revision()
	inv := benchInventory(n)
	params, err := render.Generate(context.Background(), rev, inv)
	if err != nil {
		b.Fatal(err)
	}
	children := make([]string, 0, n)
	for _, c := range inv.Clusters {
		children = append(children, "payments-"+c.Name)
	}
	slices.Sort(children)
	st := &state.State{Schema: state.Schema, Generation: 9, Deployed: oldID, Children: children,
		Revisions: map[string]json.RawMessage{id: body, oldID: oldBody},
		Rollout:   &state.Rollout{Revision: id, Status: "Progressing", Phases: []state.PhaseState{{Name: "half", Admitted: children[:n/2]}}}}
	var set v1alpha1.ApplicationSet
	if err := sigsyaml.Unmarshal([]byte(y), &set); err != nil {
		b.Fatal(err)
	}
	c := benchCase{spec: s, inv: inv, st: st, app: template.GetTempApplication(set.Spec.Template), set: set}
	for _, p := range params {
		c.param = append(c.param, p.Values)
	}
	return c
}

// BenchmarkRender compares, in one run, our whole render (parameters, revision choice per
// child, templates, YAML stream) with Argo CD's ApplicationSet renderer given the same template
// and precomputed parameters, serialising each Application with sigs.k8s.io/yaml.
func BenchmarkRender(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		for _, mode := range []string{"fasttemplate", "gotemplate"} {
			c := newBenchCase(b, n, mode == "gotemplate")
			// cmp-phase: the sidecar's steady state (caches warm across renders, as in serve);
			// cmp-phase-cold: a new renderer for every render (compile, parameters, everything).
			for _, variant := range []string{"cmp-phase", "cmp-phase-cold"} {
				b.Run(fmt.Sprintf("clusters=%d/%s/%s", n, mode, variant), func(b *testing.B) {
					benchOurs(b, c, variant == "cmp-phase-cold")
				})
			}
			if n == 10000 && testing.Short() {
				continue
			}
			b.Run(fmt.Sprintf("clusters=%d/%s/argocd", n, mode), func(b *testing.B) {
				r := &utils.Render{}
				var out bytes.Buffer
				for b.Loop() {
					out.Reset()
					for _, p := range c.param {
						app, err := r.RenderTemplateParams(c.app, c.set.Spec.SyncPolicy, p, c.set.Spec.GoTemplate, c.set.Spec.GoTemplateOptions)
						if err != nil {
							b.Fatal(err)
						}
						y, err := sigsyaml.Marshal(app)
						if err != nil {
							b.Fatal(err)
						}
						out.WriteString("---\n")
						out.Write(y)
					}
				}
				b.ReportMetric(float64(out.Len()), "bytes/render")
			})
		}
	}
}

func benchOurs(b *testing.B, c benchCase, cold bool) {
	r := render.New(4)
	var out bytes.Buffer
	for b.Loop() {
		if cold {
			r = render.New(4)
		}
		out.Reset()
		docs, err := r.Render(render.Input{Spec: c.spec, Inventory: c.inv, State: c.st, Env: render.Env{PhaseGen: 9, StateNamespace: contract.DefaultNamespace}})
		if err != nil {
			b.Fatal(err)
		}
		if err := render.WriteStream(&out, docs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(out.Len()), "bytes/render")
}
