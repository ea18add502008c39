package inputs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/shard"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Preview reports whether a render is a preview: the files were streamed from a person's
// machine (ARGOCD_APP_REVISION=streamed) and hold the marker (contract.PreviewMarker) as a
// regular file. A marker committed to git is ignored: it never admits anyone.
func Preview(revision, dir string) bool {
	if revision != contract.RevisionStreamed {
		return false
	}
	fi, err := os.Lstat(filepath.Join(dir, contract.PreviewMarker))
	return err == nil && fi.Mode().IsRegular()
}

// maxFile bounds files read here.
const maxFile = 8 << 20

func readFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if st.Size() > maxFile {
		return nil, fmt.Errorf("read %s: %d bytes, over the limit of %d", path, st.Size(), maxFile)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}

// asConfigMap decodes b as a ConfigMap when it is one.
func asConfigMap(b []byte) (*corev1.ConfigMap, bool, error) {
	if !bytes.Contains(b, []byte("ConfigMap")) {
		return nil, false, nil
	}
	var cm corev1.ConfigMap
	if err := yaml.Unmarshal(b, &cm); err != nil {
		return nil, false, fmt.Errorf("decode configmap: %w", err)
	}
	return &cm, cm.Kind == "ConfigMap", nil
}

// StateFromFile reads a state from a ConfigMap manifest or a plain state JSON document.
func StateFromFile(path string) (*state.State, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	cm, ok, err := asConfigMap(b)
	if err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	if ok {
		return state.FromConfigMap(cm)
	}
	s, err := state.DecodeJSON(b)
	if err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	return s, nil
}

// InventoryFromFile reads an inventory from a ConfigMap manifest or a plain JSON document.
func InventoryFromFile(path string) (*inventory.Inventory, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	cm, ok, err := asConfigMap(b)
	if err != nil {
		return nil, fmt.Errorf("inventory file %s: %w", path, err)
	}
	if ok {
		return InventoryFromConfigMap(cm)
	}
	return inventory.Decode(path, b)
}

// Env reads the render environment from the plugin's variables (ARGOCD_ENV_* as Argo CD
// passes them). lookup is os.LookupEnv or the env of a CMP request.
func Env(lookup func(string) (string, bool), stateNamespace string) (render.Env, error) {
	env := render.Env{StateNamespace: stateNamespace}
	if v, ok := lookup(contract.PluginEnvPhaseGen); ok && strings.TrimSpace(v) != "" {
		g, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || g < 0 {
			return env, fmt.Errorf("%s=%q is not a generation (fix: the agent sets the parent's plugin env %s; remove a hand-edited value)", contract.PluginEnvPhaseGen, v, contract.EnvPhaseGen)
		}
		env.PhaseGen = g
	}
	if v, ok := lookup(contract.EnvAppName); ok {
		env.AppName = v
	}
	if v, ok := lookup(contract.EnvAppNamespace); ok {
		env.AppNamespace = v
	}
	if v, ok := lookup(contract.PluginEnvSyncOptions); ok && v != "" {
		env.SyncOptions = v
	}
	if v, ok := lookup(contract.PluginEnvShard); ok {
		sh, err := shard.Parse(v)
		if err != nil {
			return env, fmt.Errorf("%s=%s (fix: set the parent's plugin env %s to k/N, this parent's shard k of N parents, 0 ≤ k < N, the same N on every parent of the rollout; or remove it to render every child)", contract.PluginEnvShard, err, contract.EnvShard)
		}
		env.Shard = sh
	}
	env.Source.RepoURL, _ = lookup(contract.EnvAppSourceRepoURL)
	env.Source.TargetRevision, _ = lookup(contract.EnvAppSourceTargetRevision)
	env.Source.Commit, _ = lookup(contract.EnvAppRevision)
	return env, nil
}
