package framework

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// InstallDir lays out, in a new directory under dir, manifests/install as a user applies it —
// its kustomization exactly, but for Argo CD's install.yaml, which it names by URL and which
// is taken from the version the stack runs (hack/build-tools.sh copies it) — with the
// components of manifests/ named (relative to manifests/, e.g. "extension") added after
// its own. It returns the directory, for kubectl apply -k or Manifests.
func (e *Env) InstallDir(dir string, components ...string) (string, error) {
	return e.InstallDirOn(dir, "base", components...)
}

// InstallDirOn is InstallDir with base, the component that adds the sidecar and the agent,
// replaced by another (overlays/agent-deployment: the agent as its own Deployment).
func (e *Env) InstallDirOn(dir, base string, components ...string) (string, error) {
	out, err := os.MkdirTemp(dir, "install-")
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(e.Tools.ArgoDir, "install.yaml"))
	if err != nil {
		return "", fmt.Errorf("argo cd's install.yaml: %w (run hack/build-tools.sh)", err)
	}
	if err := os.WriteFile(filepath.Join(out, "install.yaml"), b, 0o644); err != nil {
		return "", err
	}
	k, err := os.ReadFile(filepath.Join(RepoRoot(), "manifests", "install", "kustomization.yaml"))
	if err != nil {
		return "", err
	}
	// kustomize takes components by relative path only
	rel := func(c string) (string, error) { return filepath.Rel(out, filepath.Join(RepoRoot(), "manifests", c)) }
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(string(k), "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "- https://raw.githubusercontent.com/argoproj/argo-cd/"):
			if want := "/argo-cd/" + e.Tools.ArgoCDVersion + "/"; !strings.Contains(l, want) {
				return "", fmt.Errorf("manifests/install names %s, but the tests run Argo CD %s (fix: the URL's version)", l, e.Tools.ArgoCDVersion)
			}
			l = "- install.yaml"
		case l == "- ../base":
			r, err := rel(base)
			if err != nil {
				return "", err
			}
			l = "- " + r
		case strings.HasPrefix(l, "- ../"):
			r, err := rel(strings.TrimPrefix(l, "- ../"))
			if err != nil {
				return "", err
			}
			l = "- " + r
		}
		lines = append(lines, l)
	}
	for _, c := range components {
		r, err := rel(c)
		if err != nil {
			return "", err
		}
		lines = append(lines, "- "+r)
	}
	return out, os.WriteFile(filepath.Join(out, "kustomization.yaml"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// Build is kustomize build of dir, as kubectl apply -k renders it.
func Build(dir string) ([]*unstructured.Unstructured, error) {
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsNone
	m, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	var out []*unstructured.Unstructured
	for _, r := range m.Resources() {
		b, err := r.MarshalJSON()
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(b); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// PodOf is the pod of a rendered Deployment, for RunContainer (Images and Hosts to fill).
func PodOf(objs []*unstructured.Unstructured, deployment string) (Pod, error) {
	for _, o := range objs {
		if o.GetKind() != "Deployment" || o.GetName() != deployment {
			continue
		}
		b, err := o.MarshalJSON()
		if err != nil {
			return Pod{}, err
		}
		var d appsv1.Deployment
		if err := json.Unmarshal(b, &d); err != nil {
			return Pod{}, fmt.Errorf("deployment %s: %w", deployment, err)
		}
		return Pod{Name: deployment + "-0", Namespace: d.Namespace, Spec: d.Spec.Template.Spec}, nil
	}
	return Pod{}, fmt.Errorf("the manifests hold no Deployment %s", deployment)
}
