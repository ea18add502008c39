package render_test

import (
	"encoding/json"
	"io"

	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/applicationset/controllers/template"
	"github.com/argoproj/argo-cd/v3/applicationset/generators"
	"github.com/argoproj/argo-cd/v3/applicationset/utils"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	sigsyaml "sigs.k8s.io/yaml"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestDifferentialAgainstArgoCD renders a corpus of ApplicationSets with Argo CD's own
// ApplicationSet pipeline (applicationset/controllers/template.GenerateApplications with the
// real list and cluster generators over cluster Secrets) and with ours, and requires the
// same Applications once cmp-phase's own labels and annotations are set aside.
func TestDifferentialAgainstArgoCD(t *testing.T) {
	cases, _ := filepath.Glob("testdata/differential/*.yaml")
	cases = append(cases, "../spec/testdata/seeds/001-guestbook-rolling-update.yaml",
		"../spec/testdata/seeds/003-guestbook-rolling-sync.yaml", "../spec/testdata/seeds/000-basic-progressive.yaml")
	inv, err := inputs.InventoryFromFile("testdata/differential/inventory.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range cases {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data := mustRead(t, f)
			want := argoApps(t, data, inv)
			if len(want) == 0 {
				t.Fatal("argo cd generated no applications")
			}
			got, err := ourApps(t, f, data, inv, want)
			if err != nil {
				refusedAsArgoCDWouldBe(t, err, want)
				return
			}
			for name, w := range want {
				g, ok := got[name]
				if !ok {
					t.Errorf("we did not render %s", name)
					continue
				}
				if g != w {
					t.Errorf("%s differs\nargo cd: %s\nours:    %s", name, w, g)
				}
			}
			if len(got) != len(want) {
				t.Errorf("we rendered %d applications, argo cd %d", len(got), len(want))
			}
		})
	}
}

func argoApps(t *testing.T, data []byte, inv *inventory.Inventory) map[string]string {
	t.Helper()
	var appset v1alpha1.ApplicationSet
	if err := sigsyaml.Unmarshal(data, &appset); err != nil {
		t.Fatal(err)
	}
	if appset.Namespace == "" {
		appset.Namespace = contract.DefaultNamespace
	}
	scheme := runtime.NewScheme()
	_ = corev1.AddToScheme(scheme)
	_ = v1alpha1.AddToScheme(scheme)
	objs := []client.Object{}
	for _, c := range inv.Clusters {
		objs = append(objs, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "cluster-" + strings.ToLower(c.Name), Namespace: contract.DefaultNamespace, Labels: c.Labels, Annotations: c.Annotations},
			Data:       map[string][]byte{"name": []byte(c.Name), "server": []byte(c.Server), "project": []byte(c.Project)},
		})
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	gens := map[string]generators.Generator{"List": generators.NewListGenerator(), "Clusters": generators.NewClusterGenerator(c, contract.DefaultNamespace)}
	logrus.SetOutput(io.Discard) // the cluster generator logs through the global logger
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	apps, _, err := template.GenerateApplications(logrus.NewEntry(quiet), appset, gens, &utils.Render{}, c)
	if err != nil {
		t.Fatalf("argo cd: %v", err)
	}
	out := map[string]string{}
	for _, a := range apps {
		out[a.Name] = normalized(t, a)
	}
	return out
}

// refusedAsArgoCDWouldBe passes a render we refused for a label value only when one of
// Argo CD's generated Applications has a label value the API server refuses too (seed 001's
// example: Argo CD generates it, and then cannot create it).
func refusedAsArgoCDWouldBe(t *testing.T, err error, want map[string]string) {
	t.Helper()
	if !strings.Contains(err.Error(), "not a valid label value") {
		t.Fatal(err)
	}
	for _, w := range want {
		var a v1alpha1.Application
		if json.Unmarshal([]byte(w), &a) == nil {
			for _, v := range a.Labels {
				if len(validation.IsValidLabelValue(v)) > 0 {
					return
				}
			}
		}
	}
	t.Fatalf("we refused what Argo CD could create: %v", err)
}

// ourApps renders with every child argo cd generated deployed at the spec's revision.
func ourApps(t *testing.T, file string, data []byte, inv *inventory.Inventory, want map[string]string) (map[string]string, error) {
	t.Helper()
	s, err := spec.Parse(file, data, targets.NewCache(16))
	if err != nil {
		t.Fatal(err)
	}
	if s.Namespace == "" {
		s.Namespace = contract.DefaultNamespace
	}
	_, body, id, err := s.Revision()
	if err != nil {
		t.Fatal(err)
	}
	children := []string{}
	for name := range want {
		children = append(children, name)
	}
	st := &state.State{Schema: state.Schema, Generation: 1, Deployed: id, Children: sortedCopy(children),
		Revisions: map[string]json.RawMessage{id: body}}
	docs, err := render.New(2).Render(render.Input{Spec: s, Inventory: inv, State: st})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, d := range docs[1:] {
		var a v1alpha1.Application
		if err := json.Unmarshal(d, &a); err != nil {
			t.Fatalf("our output does not parse as an Application: %v\n%s", err, d)
		}
		a.TypeMeta = metav1.TypeMeta{}
		for _, k := range []string{contract.LabelRollout, contract.LabelCluster, contract.LabelPhase} {
			delete(a.Labels, k)
		}
		delete(a.Annotations, contract.AnnotationRevision)
		delete(a.Annotations, contract.AnnotationSyncOptions)
		delete(a.Annotations, contract.AnnotationPosition)
		out[a.Name] = normalized(t, a)
	}
	return out, nil
}

func normalized(t *testing.T, a v1alpha1.Application) string {
	t.Helper()
	if len(a.Labels) == 0 {
		a.Labels = nil
	}
	if len(a.Annotations) == 0 {
		a.Annotations = nil
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
