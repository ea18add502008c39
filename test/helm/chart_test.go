package helm

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/loader"
	"helm.sh/helm/v4/pkg/engine"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// render loads manifests/helm/cmp-phase with Helm's loader, coalesces vals with its values
// and schema, and renders it with Helm's engine as `helm install cmp-phase -n argocd` would;
// the objects come split and sorted by Helm's manifest sorter, each decoded strictly into its
// Kubernetes type (an unknown field fails).
func render(t *testing.T, vals map[string]any) ([]map[string]any, error) {
	t.Helper()
	return renderIn(t, "argocd", vals)
}

// renderIn is render into another release namespace.
func renderIn(t *testing.T, namespace string, vals map[string]any) ([]map[string]any, error) {
	t.Helper()
	chrt, err := loader.Load(repo("manifests", "helm", "cmp-phase"))
	if err != nil {
		t.Fatal(err)
	}
	top, err := util.ToRenderValues(chrt, vals, common.ReleaseOptions{Name: "cmp-phase", Namespace: namespace, IsInstall: true}, nil)
	if err != nil {
		return nil, err
	}
	files, err := engine.Render(chrt, top)
	if err != nil {
		return nil, err
	}
	for name := range files {
		if strings.HasSuffix(name, "NOTES.txt") {
			delete(files, name)
		}
	}
	_, manifests, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		return nil, err
	}
	strict := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
	var objs []map[string]any
	for _, m := range manifests {
		// a kind client-go does not know (the Prometheus Operator's) is only parsed
		if _, _, err := strict.Decode([]byte(m.Content), nil, nil); err != nil && !runtime.IsNotRegisteredError(err) {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		var o map[string]any
		if err := yaml.Unmarshal([]byte(m.Content), &o); err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		objs = append(objs, o)
	}
	return objs, nil
}

func mustRender(t *testing.T, vals map[string]any) map[string]map[string]any {
	t.Helper()
	objs, err := render(t, vals)
	if err != nil {
		t.Fatalf("render %v: %v", vals, err)
	}
	return byKey(objs)
}

// toggles are the chart's switches, each a path in its values.
var toggles = [][]string{
	{"extension", "enabled"}, {"extension", "actions"}, {"extension", "trustGroups"},
	{"leastPrivilege", "enabled"}, {"warm", "enabled"}, {"jobNamespace", "enabled"},
}

// combination is the values with the toggles whose bit is set in n on, the others off.
func combination(n int) map[string]any {
	vals := map[string]any{}
	for i, p := range toggles {
		m, ok := vals[p[0]].(map[string]any)
		if !ok {
			m = map[string]any{}
			vals[p[0]] = m
		}
		m[p[1]] = n&(1<<i) != 0
	}
	return vals
}

func on(vals map[string]any, section string) bool {
	return dig(vals, section, "enabled") == true
}

// rbac are manifests/rbac's objects, in the release's namespace whatever the toggles.
var rbac = []string{
	"ServiceAccount/argocd/cmp-phase-plugin", "Secret/argocd/cmp-phase-plugin-token", "Role/argocd/cmp-phase-plugin", "RoleBinding/argocd/cmp-phase-plugin",
	"ServiceAccount/argocd/cmp-phase-agent", "Secret/argocd/cmp-phase-agent-token", "Role/argocd/cmp-phase-agent", "RoleBinding/argocd/cmp-phase-agent",
}

// optionObjects are the objects each option adds, by the section that turns it on.
var optionObjects = map[string][]string{
	"extension":    {"Service/argocd/cmp-phase-extension", "NetworkPolicy/argocd/cmp-phase-extension"},
	"jobNamespace": {"Namespace//cmp-phase-jobs", "ServiceAccount/cmp-phase-jobs/default", "Role/cmp-phase-jobs/cmp-phase-agent-jobs", "RoleBinding/cmp-phase-jobs/cmp-phase-agent-jobs"},
}

// TestEveryToggleCombinationRenders: for every combination of the chart's toggles, Helm
// renders parseable Kubernetes objects: the 8 RBAC objects and the agent's ConfigMap always,
// each option's objects exactly when it is on, nothing else; and every setting in the
// ConfigMap is an agent flag's variable with a value (the agent refuses to start on any
// other CMP_PHASE_AGENT_ name).
func TestEveryToggleCombinationRenders(t *testing.T) {
	known := agentEnvNames(t)
	for n := range 1 << len(toggles) {
		vals := combination(n)
		objs := mustRender(t, vals)
		want := append(slices.Clone(rbac), "ConfigMap/argocd/cmp-phase-agent")
		for section, keys := range optionObjects {
			if on(vals, section) {
				want = append(want, keys...)
			}
		}
		if got := slices.Sorted(maps.Keys(objs)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
			t.Errorf("%v renders %v, want %v", vals, got, slices.Sorted(slices.Values(want)))
		}
		for name, value := range agentSettings(t, objs) {
			if !known[name] || value == "" {
				t.Errorf("%v: the agent's ConfigMap sets %s=%q, not a flag of the agent with a value (flags: %v)", vals, name, value, slices.Sorted(maps.Keys(known)))
			}
		}
	}
}

// agentSettings is the data of the agent's ConfigMap.
func agentSettings(t *testing.T, objs map[string]map[string]any) map[string]string {
	t.Helper()
	cm := objs["ConfigMap/argocd/cmp-phase-agent"]
	if cm == nil {
		t.Fatal("no ConfigMap cmp-phase-agent")
	}
	data := map[string]string{}
	for k, v := range dig(cm, "data").(map[string]any) {
		data[k] = fmt.Sprint(v)
	}
	return data
}

// TestTheAgentSettingsTakeAnyFlag: agent.settings names flags as the agent spells them, and
// the ConfigMap carries each as its variable; a setting wins over a toggle's.
func TestTheAgentSettingsTakeAnyFlag(t *testing.T) {
	vals := map[string]any{
		"jobNamespace": map[string]any{"enabled": true},
		"agent":        map[string]any{"settings": map[string]any{"log-level": "debug", "hook-allow-private": true, "job-namespace": "hooks"}},
	}
	got := agentSettings(t, mustRender(t, vals))
	want := map[string]string{"CMP_PHASE_AGENT_LOG_LEVEL": "debug", "CMP_PHASE_AGENT_HOOK_ALLOW_PRIVATE": "true", "CMP_PHASE_AGENT_JOB_NAMESPACE": "hooks"}
	if !maps.Equal(got, want) {
		t.Errorf("settings %v give %v, want %v", vals["agent"], got, want)
	}
}

// TestAMisspeltValueIsRefused: the chart's schema refuses a key it does not know, so a
// misspelt toggle fails the install instead of leaving its option off.
func TestAMisspeltValueIsRefused(t *testing.T) {
	for _, vals := range []map[string]any{
		{"extention": map[string]any{"enabled": true}},
		{"extension": map[string]any{"enable": true}},
		{"agent": map[string]any{"settings": map[string]any{"--log-level": "debug"}}},
	} {
		if _, err := render(t, vals); err == nil || !strings.Contains(err.Error(), "schema") {
			t.Errorf("%v renders (err %v), want the schema's refusal", vals, err)
		}
	}
}

var agentHelp = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "cmp-phase-agent-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "agent")
	build := exec.Command("go", "build", "-o", bin, "./cmd/agent")
	build.Dir = repo()
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build ./cmd/agent: %v\n%s", err, out)
	}
	return exec.Command(bin, "--help").Output()
})

// agentEnvNames are the variables of the agent's flags as it reads them (cmd/agent/env.go:
// CMP_PHASE_AGENT_ and the name in upper case, '_' for '-'; --version and --help only on
// the command line), from the --help of the agent built from this repository.
func agentEnvNames(t *testing.T) map[string]bool {
	t.Helper()
	help, err := agentHelp()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  (?:-[a-z], |    )--([a-z0-9-]+)`).FindAllStringSubmatch(string(help), -1) {
		if m[1] != "version" && m[1] != "help" {
			names["CMP_PHASE_AGENT_"+strings.ToUpper(strings.ReplaceAll(m[1], "-", "_"))] = true
		}
	}
	if !names["CMP_PHASE_AGENT_INVENTORY_FROM"] {
		t.Fatalf("the agent's -h names no --inventory-from:\n%s", help)
	}
	return names
}
