package framework

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Tools are the paths of the real programs built by hack/build-tools.sh.
type Tools struct {
	Etcd, KubeAPIServer, KubeControllerManager, Kubectl string
	KubeScheduler                                       string
	Kwok                                                string // fake nodes and pods (sigs.k8s.io/kwok)
	KwokStages                                          string // kwok's own node and pod stages
	ArgoCD                                              string // multi-call binary
	ArgoCDVersion                                       string // its version (Options.ArgoCDVersion)
	ArgoDir                                             string // holds git-verify-wrapper.sh and crds/
	KustomizeDir                                        string // holds kustomize (the repo-server runs it)
	Versions                                            map[string]string
}

// RepoRoot is the root of this repository, found from this source file's location.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// PinnedVersions are hack/versions.sh's variables (KUBE_VERSION, ARGOCD_VERSION,
// ARGOCD_PREVIOUS_VERSION, …), the versions hack/build-tools.sh builds.
func PinnedVersions() (map[string]string, error) {
	return readVersions(filepath.Join(RepoRoot(), "hack", "versions.sh"))
}

// LoadTools finds the built programs in the version-keyed cache, with Argo CD at argoVersion
// (one hack/build-tools.sh builds; empty: ARGOCD_VERSION). It never builds: the test command
// (hack/test.sh) runs hack/build-tools.sh first.
func LoadTools(argoVersion string) (Tools, error) {
	root := RepoRoot()
	versions, err := PinnedVersions()
	if err != nil {
		return Tools{}, err
	}
	if argoVersion == "" {
		argoVersion = versions["ARGOCD_VERSION"]
	}
	cache := os.Getenv("CMP_PHASE_TOOLS_DIR")
	if cache == "" {
		cache = filepath.Join(root, ".cache", "tools")
	}
	kube := filepath.Join(cache, "kubernetes-"+versions["KUBE_VERSION"])
	argo := filepath.Join(cache, "argocd-"+argoVersion)
	t := Tools{
		Etcd:                  filepath.Join(cache, "etcd-"+versions["ETCD_VERSION"], "etcd"),
		KubeAPIServer:         filepath.Join(kube, "kube-apiserver"),
		KubeControllerManager: filepath.Join(kube, "kube-controller-manager"),
		Kubectl:               filepath.Join(kube, "kubectl"),
		KubeScheduler:         filepath.Join(kube, "kube-scheduler"),
		Kwok:                  filepath.Join(cache, "kwok-"+versions["KWOK_VERSION"], "kwok"),
		KwokStages:            filepath.Join(cache, "kwok-"+versions["KWOK_VERSION"], "stages"),
		ArgoCD:                filepath.Join(argo, "argocd"),
		ArgoCDVersion:         argoVersion,
		ArgoDir:               argo,
		KustomizeDir:          filepath.Join(cache, "kustomize-"+versions["KUSTOMIZE_VERSION"]),
		Versions:              versions,
	}
	for _, p := range []string{t.Etcd, t.KubeAPIServer, t.KubeControllerManager, t.Kubectl, t.ArgoCD, filepath.Join(t.KustomizeDir, "kustomize"),
		t.KubeScheduler, t.Kwok, filepath.Join(t.KwokStages, "pod-ready.yaml")} {
		if _, err := os.Stat(p); err != nil {
			return Tools{}, fmt.Errorf("missing %s: run hack/build-tools.sh first: %w", p, err)
		}
	}
	return t, nil
}

func readVersions(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read versions: %w", err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			out[k] = v
		}
	}
	return out, sc.Err()
}
