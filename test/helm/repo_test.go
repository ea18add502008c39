package helm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// repo is a path in the repository (this module is test/helm).
func repo(parts ...string) string {
	return filepath.Join(append([]string{"..", ".."}, parts...)...)
}

// readYAML parses a file of the repository into a map.
func readYAML(t *testing.T, parts ...string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(repo(parts...))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", filepath.Join(parts...), err)
	}
	return m
}

// objKey is kind/namespace/name, how Helm tells a release's objects apart.
func objKey(o map[string]any) string {
	meta, _ := o["metadata"].(map[string]any)
	ns, _ := meta["namespace"].(string)
	return fmt.Sprint(o["kind"], "/", ns, "/", meta["name"])
}

func byKey(objs []map[string]any) map[string]map[string]any {
	m := map[string]map[string]any{}
	for _, o := range objs {
		m[objKey(o)] = o
	}
	return m
}

// stub stands for Argo CD's install: the Deployments and ConfigMaps the components patch.
const stub = `apiVersion: apps/v1
kind: Deployment
metadata: {name: argocd-repo-server, namespace: argocd}
spec:
  selector: {matchLabels: {app: repo-server}}
  template:
    metadata: {labels: {app: repo-server}}
    spec:
      containers: [{name: argocd-repo-server, image: argocd}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: argocd-server, namespace: argocd}
spec:
  selector: {matchLabels: {app: server}}
  template:
    metadata: {labels: {app: server}}
    spec:
      containers: [{name: argocd-server, image: argocd}]
---
{apiVersion: v1, kind: ConfigMap, metadata: {name: argocd-cm, namespace: argocd}}
---
{apiVersion: v1, kind: ConfigMap, metadata: {name: argocd-rbac-cm, namespace: argocd}}
---
{apiVersion: v1, kind: ConfigMap, metadata: {name: argocd-cmd-params-cm, namespace: argocd}}
`

// kustomize builds the stub with manifests/base and the given components (and extra
// resources, both relative to manifests/), and returns its objects by key.
func kustomize(t *testing.T, resources, components []string) map[string]map[string]any {
	t.Helper()
	dir := t.TempDir()
	abs, err := filepath.Abs(repo("manifests"))
	if err != nil {
		t.Fatal(err)
	}
	manifests, err := filepath.Rel(dir, abs) // kustomize takes no absolute root
	if err != nil {
		t.Fatal(err)
	}
	k := "resources: [stub.yaml"
	for _, r := range resources {
		k += ", " + filepath.Join(manifests, r)
	}
	k += "]\ncomponents: [" + filepath.Join(manifests, "base")
	for _, c := range components {
		k += ", " + filepath.Join(manifests, c)
	}
	k += "]\n"
	for name, body := range map[string]string{"kustomization.yaml": k, "stub.yaml": stub} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return build(t, dir)
}

// build is `kustomize build dir`'s objects by key.
func build(t *testing.T, dir string) map[string]map[string]any {
	t.Helper()
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsNone
	m, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build: %v", err)
	}
	out, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	objs := map[string]map[string]any{}
	for _, doc := range strings.Split(string(out), "\n---\n") {
		var o map[string]any
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatal(err)
		}
		objs[objKey(o)] = o
	}
	return objs
}

// podSpec is a Deployment's pod template spec.
func podSpec(d map[string]any) map[string]any {
	return dig(d, "spec", "template", "spec").(map[string]any)
}

// dig follows map keys; nil when one is missing.
func dig(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// named is the element of a list of maps whose name is name.
func named(list any, name string) map[string]any {
	l, _ := list.([]any)
	for _, e := range l {
		if m, ok := e.(map[string]any); ok && m["name"] == name {
			return m
		}
	}
	return nil
}
