package helm

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// option is one of the install's options, as a kustomize component and as the Helm values
// that stand for it.
type option struct {
	component string   // the kustomize component under manifests/, after base
	resources []string // the resources it comes with, under manifests/
	section   string   // the cmp-phase chart's values section whose enabled turns it on
	file      string   // the argo-cd chart's option file, if Argo CD's objects need one
}

var options = []option{
	{component: "extension", section: "extension", file: "values-extension.yaml"},
	{component: "least-privilege", section: "leastPrivilege", file: "values-least-privilege.yaml"},
	{component: "job-namespace/agent", resources: []string{"job-namespace"}, section: "jobNamespace"},
}

// subsets are every subset of options.
func subsets(opts []option) [][]option {
	out := [][]option{nil}
	for _, o := range opts {
		for _, s := range out {
			out = append(out, append(slices.Clone(s), o))
		}
	}
	return out
}

// TestEachOptionSetIsItsComponents: for every subset of the options, the Helm install is the
// kustomize one (manifests/base with those components over Argo CD's objects): the cmp-phase
// chart with those toggles renders exactly the objects of ours the build makes (the 8 of
// manifests/rbac with the Roles the components patch, the extension's Service and
// NetworkPolicy, manifests/job-namespace), its ConfigMap holds exactly the agent's
// CMP_PHASE_AGENT_ variables the components set, and the argo-cd chart's option files set
// exactly the keys the components add to argocd-cm, argocd-rbac-cm and argocd-cmd-params-cm
// (values.yaml exactly base's).
func TestEachOptionSetIsItsComponents(t *testing.T) {
	base := kustomize(t, nil, nil)
	for _, set := range subsets(options) {
		var resources, components, files []string
		vals := map[string]any{}
		for _, o := range set {
			resources, components = append(resources, o.resources...), append(components, o.component)
			vals[o.section] = map[string]any{"enabled": true}
			if o.file != "" {
				files = append(files, repo("manifests", "helm", o.file))
			}
		}
		k, h := kustomize(t, resources, components), mustRender(t, vals)
		sameObjects(t, components, k, h)
		if want, got := agentEnv(k), agentSettings(t, h); !maps.Equal(got, want) {
			t.Errorf("%v: the chart's agent settings %v, the components' env %v", components, got, want)
		}
		if len(set) == 0 { // base's own keys over Argo CD's are values.yaml's
			sameArgoConfig(t, []string{"base"}, nil, k, merge(t, []string{repo("manifests", "helm", "values.yaml")}))
			continue
		}
		sameArgoConfig(t, components, base, k, merge(t, files))
	}
}

// ours are a kustomize build's objects but the stub's Deployments and Argo CD's ConfigMaps,
// in argocd when they name no namespace (as the install's `namespace: argocd` puts them).
func ours(k map[string]map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for key, o := range k {
		if o["kind"] == "Deployment" || strings.HasPrefix(key, "ConfigMap/argocd/argocd-") {
			continue
		}
		if meta := o["metadata"].(map[string]any); meta["namespace"] == nil && o["kind"] != "Namespace" {
			meta["namespace"] = "argocd"
		}
		out[objKey(o)] = o
	}
	return out
}

func sameObjects(t *testing.T, components []string, k, h map[string]map[string]any) {
	t.Helper()
	want := ours(k)
	got := maps.Clone(h)
	delete(got, "ConfigMap/argocd/cmp-phase-agent")
	if g, w := slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)); !slices.Equal(g, w) {
		t.Errorf("%v: the chart renders %v, kustomize builds %v", components, g, w)
	}
	for key, w := range want {
		if g := got[key]; g != nil && !reflect.DeepEqual(g, w) {
			t.Errorf("%v: %s differs\nchart:     %v\nkustomize: %v", components, key, g, w)
		}
	}
}

// agentEnv are the CMP_PHASE_AGENT_ variables the build gives the agent container.
func agentEnv(k map[string]map[string]any) map[string]string {
	env := map[string]string{}
	agent := named(podSpec(k["Deployment/argocd/argocd-repo-server"])["containers"], "cmp-phase-agent")
	for _, e := range agent["env"].([]any) {
		e := e.(map[string]any)
		if name := e["name"].(string); strings.HasPrefix(name, "CMP_PHASE_AGENT_") {
			env[name] = e["value"].(string)
		}
	}
	return env
}

// argoConfigMaps are the argo-cd chart's configs sections and the ConfigMaps they make.
var argoConfigMaps = map[string]string{"cm": "argocd-cm", "rbac": "argocd-rbac-cm", "params": "argocd-cmd-params-cm"}

// sameArgoConfig: the keys the components add to Argo CD's ConfigMaps over base's are the
// keys the option files set in configs, with the same values.
func sameArgoConfig(t *testing.T, components []string, base, k map[string]map[string]any, files map[string]any) {
	t.Helper()
	for section, name := range argoConfigMaps {
		was, _ := dig(base["ConfigMap/argocd/"+name], "data").(map[string]any)
		added := map[string]any{}
		now, _ := dig(k["ConfigMap/argocd/"+name], "data").(map[string]any)
		for key, v := range now {
			if _, ok := was[key]; !ok {
				added[key] = v
			}
		}
		got, _ := dig(files, "configs", section).(map[string]any)
		if !reflect.DeepEqual(proxyBackends(t, got), proxyBackends(t, added)) {
			t.Errorf("%v: the option files' configs.%s %v, the components add to %s %v", components, section, got, name, added)
		}
	}
}

// proxyBackends reads every extension.config key as its extensions' backends by name: Argo
// CD takes extension.config.<name> as <name>'s backend, and extension.config as a list of
// extensions, each with its name and backend (settings.go, extension.go). Other keys stay.
func proxyBackends(t *testing.T, data map[string]any) map[string]any {
	t.Helper()
	out := map[string]any{}
	for key, v := range data {
		name, isExt := strings.CutPrefix(key, "extension.config")
		if !isExt {
			out[key] = v
			continue
		}
		var doc map[string]any
		if err := yaml.Unmarshal([]byte(v.(string)), &doc); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if name != "" {
			out["extension "+strings.TrimPrefix(name, ".")] = doc
			continue
		}
		for _, e := range doc["extensions"].([]any) {
			e := e.(map[string]any)
			out["extension "+e["name"].(string)] = e["backend"]
		}
	}
	return out
}

// TestTheHelmContainersAreTheComponents: values.yaml's sidecar and agent are manifests/base's
// with every option's component: the same command, args, image, probes, resources, security
// context, env, mounts and ports. Helm's agent takes the components' CMP_PHASE_AGENT_
// variables from the cmp-phase chart's ConfigMap instead (envFrom), and its options' Secrets
// are optional so the repo-server starts whatever that release holds. Its pods carry base's
// labels and its volumes are base's with the components'.
func TestTheHelmContainersAreTheComponents(t *testing.T) {
	var resources, components []string
	for _, o := range options {
		resources, components = append(resources, o.resources...), append(components, o.component)
	}
	k := kustomize(t, resources, components)
	pod := podSpec(k["Deployment/argocd/argocd-repo-server"])
	rs := readYAML(t, "manifests", "helm", "values.yaml")["repoServer"].(map[string]any)
	for _, name := range []string{"cmp-phase", "cmp-phase-agent"} {
		h, w := normalise(named(rs["extraContainers"], name)), normalise(named(pod["containers"], name))
		if wantFrom := []any{map[string]any{"configMapRef": map[string]any{"name": "cmp-phase-agent", "optional": true}}}; name == "cmp-phase-agent" && !reflect.DeepEqual(h["envFrom"], wantFrom) {
			t.Errorf("the agent's envFrom is %v, want %v", h["envFrom"], wantFrom)
		}
		delete(h, "envFrom")
		if !reflect.DeepEqual(h, w) {
			t.Errorf("container %s differs\nhelm:      %v\nkustomize: %v", name, h, w)
		}
	}
	want := map[string]any{}
	for _, v := range pod["volumes"].([]any) {
		if n := v.(map[string]any)["name"].(string); strings.HasPrefix(n, "cmp-phase") {
			want[n] = v
		}
	}
	if got := withoutOptional(t, rs["volumes"].([]any)); !reflect.DeepEqual(got, want) {
		t.Errorf("volumes differ\nhelm:      %v\nkustomize: %v", got, want)
	}
	labels := dig(k["Deployment/argocd/argocd-repo-server"], "spec", "template", "metadata", "labels").(map[string]any)
	delete(labels, "app")
	if !reflect.DeepEqual(rs["podLabels"], labels) {
		t.Errorf("repoServer.podLabels %v, base's pod labels %v", rs["podLabels"], labels)
	}
}

// normalise makes a container comparable: its image at its tag, env (without the
// CMP_PHASE_AGENT_ variables), mounts and ports by name.
func normalise(c map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range c {
		out[k] = v
	}
	for _, field := range []string{"env", "volumeMounts", "ports"} {
		m := map[string]any{}
		for _, e := range out[field].([]any) {
			if n := e.(map[string]any)["name"].(string); !strings.HasPrefix(n, "CMP_PHASE_AGENT_") {
				m[n] = e
			}
		}
		out[field] = m
	}
	return out
}

// withoutOptional is volumes by name with the optional of each Secret taken off, failing
// unless every Secret is optional.
func withoutOptional(t *testing.T, volumes []any) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, v := range volumes {
		v := v.(map[string]any)
		if s, ok := v["secret"].(map[string]any); ok {
			if s["optional"] != true {
				t.Errorf("volume %s: the Secret %s is not optional: a repo-server pod would not start without it", v["name"], s["secretName"])
			}
			s = maps.Clone(s)
			delete(s, "optional")
			v = map[string]any{"name": v["name"], "secret": s}
		}
		out[v["name"].(string)] = v
	}
	return out
}
