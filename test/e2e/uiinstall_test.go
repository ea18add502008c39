//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/semver"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// extensionsPattern is the name argocd-server serves a file under its extensions directory
// by (server/server.go, extensionsPattern: ^extension(.*)\.js$).
var extensionsPattern = regexp.MustCompile(`^extension(.*)\.js$`)

// extensionMarker is a string the built extension holds exactly once.
const extensionMarker = "cmp-phase extension: window.extensionsAPI is missing"

// ourKey is the argocd-cm key of the extension's proxy configuration.
const ourKey = "extension.config.cmp-phase"

// TestUIExtensionManifests renders what the install ships for the UI extension and checks
// that nothing in it can keep argocd-server from starting, and that it leaves other proxy
// extensions alone: manifests/extension over manifests/base and Argo CD's install.yaml, and
// manifests/helm/values-extension.yaml.
func TestUIExtensionManifests(t *testing.T) {
	t.Parallel()
	other := "extensions:\n- name: metrics\n  backend:\n    services:\n    - url: http://argocd-metrics-server:9003\n"
	m := buildOver(t, other, "base", "extension")

	// argocd-server: no init container (nothing downloads, nothing can fail before it
	// starts), the extension from an optional ConfigMap volume (missing: an empty directory).
	spec := deploymentSpec(t, m, "argocd-server")
	if ics, _, _ := unstructured.NestedSlice(spec, "initContainers"); len(ics) != 0 {
		t.Errorf("argocd-server has init containers %v: one that fails keeps argocd-server from starting", ics)
	}
	v := extensionVolume(t, m)
	if !v.Optional || !v.ReadOnly || !strings.HasPrefix(v.MountPath, "/tmp/extensions/") || !extensionsPattern.MatchString(v.Path) {
		t.Errorf("the extension's volume: %+v; want an optional ConfigMap mounted read-only under /tmp/extensions/ as a file argocd-server serves", v)
	}

	// argocd-cm: the extension's own key; the installation's extension.config as it was.
	data := configMapData(t, m, "argocd-cm")
	if data["extension.config"] != other {
		t.Errorf("argocd-cm's extension.config after the component: %q, want the installation's %q", data["extension.config"], other)
	}
	backend, err := parseBackend(data[ourKey])
	if err != nil {
		t.Errorf("argocd-cm %s: %v", ourKey, err)
	} else if len(backend.Services) != 1 || !strings.HasPrefix(backend.Services[0].URL, "http://cmp-phase-extension.") ||
		len(backend.Services[0].Headers) != 1 || backend.Services[0].Headers[0].Value != "$cmp-phase-extension:secret" {
		t.Errorf("argocd-cm %s: %+v", ourKey, backend)
	}

	// Helm: the same proxy configuration under the same key; the chart's installer takes a
	// failed download as a warning (IGNORE_FAILURE, installer v1.0.0 and later).
	var values struct {
		Server struct {
			Extensions struct {
				Enabled bool
				Image   struct{ Tag string }
				List    []struct {
					Name string
					Env  []corev1.EnvVar
				} `json:"extensionList"`
			}
		}
		Configs struct{ CM map[string]string }
	}
	b, err := os.ReadFile(filepath.Join(framework.RepoRoot(), "manifests", "helm", "values-extension.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &values); err != nil {
		t.Fatal(err)
	}
	if _, ok := values.Configs.CM["extension.config"]; ok {
		t.Error("values-extension.yaml sets configs.cm.extension.config, the key other proxy extensions share")
	}
	if got, err := parseBackend(values.Configs.CM[ourKey]); err != nil || fmt.Sprint(got) != fmt.Sprint(backend) {
		t.Errorf("values-extension.yaml's %s: %+v (%v), manifests/extension's: %+v", ourKey, got, err, backend)
	}
	ext := values.Server.Extensions
	if !semver.IsValid(ext.Image.Tag) || semver.Compare(ext.Image.Tag, "v1.0.0") < 0 {
		t.Errorf("values-extension.yaml's installer at %q: IGNORE_FAILURE needs v1.0.0 or later", ext.Image.Tag)
	}
	if len(ext.List) != 1 {
		t.Fatalf("values-extension.yaml installs %d extensions, want cmp-phase's", len(ext.List))
	}
	envs := map[string]string{}
	for _, e := range ext.List[0].Env {
		envs[e.Name] = e.Value
	}
	if envs["IGNORE_FAILURE"] != "true" || !strings.HasSuffix(envs["EXTENSION_URL"], "/extension-cmp-phase.tar.gz") || envs["EXTENSION_NAME"] != "cmp-phase" {
		t.Errorf("values-extension.yaml's installer env: %v; a missing tarball must not keep argocd-server from starting (IGNORE_FAILURE=true)", envs)
	}
}

// buildOver renders components over Argo CD's install.yaml (from the Go module cache, as
// build does) whose argocd-cm already has extensionConfig as its extension.config, as an
// installation with another proxy extension has.
func buildOver(t *testing.T, extensionConfig string, components ...string) resmap.ResMap {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/argoproj/argo-cd/v3").Output()
	if err != nil {
		t.Fatalf("locate argo-cd's module: %v", err)
	}
	install, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "manifests", "install.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	base, overlay := filepath.Join(dir, "argocd"), filepath.Join(dir, "overlay")
	for _, d := range []string{base, overlay} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cm, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]string{"name": "argocd-cm"},
		"data": map[string]string{"extension.config": extensionConfig}})
	files := map[string][]byte{
		filepath.Join(base, "install.yaml"):       install,
		filepath.Join(base, "kustomization.yaml"): []byte("resources: [install.yaml]\npatches:\n- path: argocd-cm.yaml\n"),
		filepath.Join(base, "argocd-cm.yaml"):     cm,
	}
	var rels []string
	for _, c := range components {
		rel, err := filepath.Rel(overlay, filepath.Join(framework.RepoRoot(), "manifests", c))
		if err != nil {
			t.Fatal(err)
		}
		rels = append(rels, rel)
	}
	files[filepath.Join(overlay, "kustomization.yaml")] = []byte("namespace: argocd\nresources: [../argocd]\ncomponents: [" + strings.Join(rels, ", ") + "]\n")
	for p, b := range files {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsNone
	m, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), overlay)
	if err != nil {
		t.Fatalf("kustomize build: %v", err)
	}
	return m
}

// rendered is a rendered resource's field at path (a map).
func rendered(t *testing.T, m resmap.ResMap, kind, name string, path ...string) map[string]any {
	t.Helper()
	for _, r := range m.Resources() {
		if r.GetKind() == kind && r.GetName() == name {
			v, _, _ := unstructured.NestedMap(asJSON(t, r), path...)
			return v
		}
	}
	t.Fatalf("no %s %s", kind, name)
	return nil
}

func deploymentSpec(t *testing.T, m resmap.ResMap, name string) map[string]any {
	return rendered(t, m, "Deployment", name, "spec", "template", "spec")
}

func configMapData(t *testing.T, m resmap.ResMap, name string) map[string]string {
	out := map[string]string{}
	for k, v := range rendered(t, m, "ConfigMap", name, "data") {
		out[k], _ = v.(string)
	}
	return out
}

// uiVolume is where argocd-server's pod gets the extension's file.
type uiVolume struct {
	ConfigMap, Key, Path, MountPath string
	Optional, ReadOnly              bool
}

// extensionVolume is the ConfigMap volume manifests/extension mounts into argocd-server's
// extensions directory.
func extensionVolume(t *testing.T, m resmap.ResMap) uiVolume {
	t.Helper()
	b, err := json.Marshal(deploymentSpec(t, m, "argocd-server"))
	if err != nil {
		t.Fatal(err)
	}
	var spec corev1.PodSpec
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	var mounts []corev1.VolumeMount
	for _, c := range spec.Containers {
		if c.Name == "argocd-server" {
			mounts = c.VolumeMounts
		}
	}
	for _, vol := range spec.Volumes {
		if vol.ConfigMap == nil || len(vol.ConfigMap.Items) != 1 {
			continue
		}
		for _, mt := range mounts {
			if mt.Name == vol.Name && strings.HasPrefix(mt.MountPath, "/tmp/extensions") {
				return uiVolume{ConfigMap: vol.ConfigMap.Name, Key: vol.ConfigMap.Items[0].Key, Path: vol.ConfigMap.Items[0].Path, MountPath: mt.MountPath,
					Optional: vol.ConfigMap.Optional != nil && *vol.ConfigMap.Optional, ReadOnly: mt.ReadOnly}
			}
		}
	}
	t.Fatalf("argocd-server mounts no ConfigMap under /tmp/extensions: volumes %+v, mounts %+v", spec.Volumes, mounts)
	return uiVolume{}
}

// backendConfig is a per-extension extension.config.<name> value as argocd-server reads it
// (server/extension/extension.go, BackendConfig: its ProxyConfig and services).
type backendConfig struct {
	ConnectionTimeout     string `json:"connectionTimeout,omitempty"`
	KeepAlive             string `json:"keepAlive,omitempty"`
	IdleConnectionTimeout string `json:"idleConnectionTimeout,omitempty"`
	MaxIdleConnections    int    `json:"maxIdleConnections,omitempty"`
	Services              []struct {
		URL     string `json:"url"`
		Cluster *struct {
			Name   string `json:"name,omitempty"`
			Server string `json:"server,omitempty"`
		} `json:"cluster,omitempty"`
		Headers []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"headers"`
	} `json:"services"`
}

// parseBackend reads a per-extension value strictly: an unknown field (say, the shared
// key's "extensions:" list) or no service fails.
func parseBackend(s string) (backendConfig, error) {
	var b backendConfig
	if err := yaml.UnmarshalStrict([]byte(s), &b); err != nil {
		return b, err
	}
	if len(b.Services) == 0 {
		return b, fmt.Errorf("no backend service in %q", s)
	}
	return b, nil
}

// ourExtensionConfig is manifests/extension's extension.config.cmp-phase with the agent's
// endpoint at addr for the Service's URL: the test configures argocd-server with what the
// install ships.
func ourExtensionConfig(t *testing.T, addr string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(framework.RepoRoot(), "manifests", "extension", "argocd-cm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := yaml.Unmarshal(b, &cm); err != nil {
		t.Fatal(err)
	}
	v, svc := cm.Data[ourKey], "http://cmp-phase-extension.argocd.svc.cluster.local:9404"
	if strings.Count(v, svc) != 1 {
		t.Fatalf("manifests/extension/argocd-cm.yaml's %s names the Service %s not once:\n%s", ourKey, svc, v)
	}
	return strings.Replace(v, svc, "http://"+addr, 1)
}

// echoConfig is the shared extension.config as an installation with another proxy
// extension has it: echo, the test's own tiny backend.
func echoConfig() string {
	return fmt.Sprintf("extensions:\n- name: echo\n  backend:\n    services:\n    - url: %s\n", echoURL)
}

// buildUI builds the extension as the release does (npm ci from the lock file, npm run
// pack) and the test page, after checking both against the Argo CD the stack runs: its
// extension API's TypeScript definitions (tsc over test/contract.ts and test/shell.tsx),
// the places its UI renders what extensions register (which the test page repeats), its
// React, and the plugin name the extension looks for. It returns ui/dist.
func buildUI(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(framework.RepoRoot(), "ui")
	run := func(name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v in %s: %v\n%s", name, args, dir, err, out)
		}
	}
	run("npm", "ci", "--no-audit", "--no-fund")
	mod := argoCDModule(t)
	run("node", "test/argocd-src.mjs", mod)
	checkArgoCDRenderSites(t, mod, dir)
	checkExtensionSource(t, dir)
	run("npm", "run", "typecheck")
	run("npm", "run", "typecheck:test")
	run("npm", "run", "pack")
	return filepath.Join(dir, "dist")
}

// argoCDModule is the directory of the argo-cd module at the version the stack runs (its
// zip holds ui/src), with the Go toolchain hack/versions.sh names for that version.
func argoCDModule(t *testing.T) string {
	t.Helper()
	v := env.Tools.ArgoCDVersion
	cmd := exec.Command("go", "mod", "download", "-json", "github.com/argoproj/argo-cd/v3@"+v)
	cmd.Dir = t.TempDir() // outside any module
	cmd.Env = os.Environ()
	if tc := env.Tools.Versions["ARGOCD_GO_TOOLCHAIN"]; tc != "" && v == env.Tools.Versions["ARGOCD_VERSION"] {
		cmd.Env = append(cmd.Env, "GOTOOLCHAIN="+tc)
	}
	out, err := cmd.Output()
	var m struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &m); jerr != nil || m.Dir == "" {
		t.Fatalf("go mod download github.com/argoproj/argo-cd/v3@%s: %v %v %s", v, err, jerr, m.Error)
	}
	return m.Dir
}

// argoRenderSites are what Argo CD's UI does with registered extensions, spelled as in its
// source: the test page (ui/test/shell.tsx) does the same, so when Argo CD changes one of
// these the test fails and the page must follow.
var argoRenderSites = map[string][]string{
	"ui/src/app/applications/components/application-status-panel/application-status-panel.tsx": {
		"const statusExtensions = services.extensions.getStatusPanelExtensions();",
		"{statusExtensions && statusExtensions.map(ext => <ext.component key={ext.title} application={application} openFlyout={() => showExtension && showExtension(ext.id)} />)}",
	},
	"ui/src/app/applications/components/application-details/application-details.tsx": {
		"if (!extension.shouldDisplay(application as appModels.Application)) { appContext.navigation.goto('.', {view: Tree}); }",
		".filter(ext => ext.shouldDisplay(application as appModels.Application))",
		"<activeStatusExt.flyout application={application as appModels.Application} tree={tree} />",
		"return <extension.component application={application} tree={tree} />;",
		"services.extensions.addEventListener('appView', onExtensionsUpdate);",
		"services.extensions.addEventListener('statusPanel', onExtensionsUpdate);",
	},
	"ui/src/app/shared/components/layout/layout.tsx": {"<div className={`theme-${theme}`}>"},
	"ui/src/app/index.tsx":                           {"(window as any).React = React;", "(window as any).ReactDOM = ReactDOM;"},
	"ui/src/app/index.html":                          {`<script defer src="extensions.js"></script>`},
}

func checkArgoCDRenderSites(t *testing.T, mod, ui string) {
	t.Helper()
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for file, sites := range argoRenderSites {
		b, err := os.ReadFile(filepath.Join(mod, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sites {
			if !strings.Contains(flat(string(b)), flat(s)) {
				t.Errorf("Argo CD %s's %s no longer has %q: make ui/test/shell.tsx render extensions as it now does", env.Tools.ArgoCDVersion, file, s)
			}
		}
	}
	// React: the major Argo CD's UI provides as window.React is the one the page bundles.
	var argo, ours struct {
		Dependencies, DevDependencies map[string]string
	}
	for p, into := range map[string]any{filepath.Join(mod, "ui", "package.json"): &argo, filepath.Join(ui, "package.json"): &ours} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, into); err != nil {
			t.Fatal(err)
		}
	}
	major := regexp.MustCompile(`\d+`)
	if a, o := major.FindString(argo.Dependencies["react"]), major.FindString(ours.DevDependencies["react"]); a == "" || a != o {
		t.Errorf("Argo CD %s's UI runs react %s, the test page react %s", env.Tools.ArgoCDVersion, argo.Dependencies["react"], ours.DevDependencies["react"])
	}
}

// checkExtensionSource: the extension looks for the plugin internal/contract names, and no
// component draws a colour of its own (each comes from src/style.ts's theme variables).
func checkExtensionSource(t *testing.T, ui string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ui, "src", "parent.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`PLUGIN_NAME = '([^']*)'`).FindStringSubmatch(string(b)); m == nil || m[1] != contract.PluginName {
		t.Errorf("ui/src/parent.ts's PLUGIN_NAME %v, internal/contract.PluginName %q", m, contract.PluginName)
	}
	files, err := filepath.Glob(filepath.Join(ui, "src", "*.ts*"))
	if err != nil {
		t.Fatal(err)
	}
	colour := regexp.MustCompile(`#[0-9a-fA-F]{3,8}\b|\brgba?\(|\bhsla?\(`)
	for _, f := range files {
		if filepath.Base(f) == "style.ts" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if c := colour.FindString(string(b)); c != "" {
			t.Errorf("%s draws the colour %q: use a class of src/style.ts, whose colours follow Argo CD's theme", f, c)
		}
	}
}

// installUI installs the packed extension as manifests/extension does, after showing that
// argocd-server starts without it: the ConfigMap the release ships
// (dist/extension-cmp-phase-configmap.yaml) must be the one the rendered argocd-server
// mounts, with the file under the name it mounts. argocd-server's extensions directory is
// fixed (/tmp/extensions); the volume stands at a directory of this run's own beneath it, as
// its mountPath does in the pod, and holds the files as the kubelet writes a ConfigMap
// volume. The test page goes into argocd-server's static assets.
func installUI(t *testing.T, dist string) {
	t.Helper()
	ctx := context.Background()
	vol := extensionVolume(t, build(t, "base", "extension"))
	b, err := os.ReadFile(filepath.Join(dist, "extension-cmp-phase-configmap.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(b, &cm); err != nil {
		t.Fatalf("the packed ConfigMap: %v", err)
	}
	js, err := os.ReadFile(filepath.Join(dist, "extension-cmp-phase.js"))
	if err != nil {
		t.Fatal(err)
	}
	if cm.Kind != "ConfigMap" || cm.Name != vol.ConfigMap || cm.Data[vol.Key] != string(js) || !extensionsPattern.MatchString(vol.Path) {
		t.Fatalf("the packed ConfigMap %s/%s (keys %v) is not what argocd-server mounts: %+v", cm.Kind, cm.Name, keys(cm.Data), vol)
	}

	mount := filepath.Join("/tmp/extensions", fmt.Sprintf("cmp-phase-e2e-%d", os.Getpid()))
	if err := os.RemoveAll(mount); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(mount, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(mount) })
	// Without the ConfigMap the optional volume is an empty directory: argocd-server starts
	// with it and serves /extensions.js, without the extension.
	ctxT, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := env.Restart(ctxT, "argocd-server", 10*time.Second, env.ArgoServer); err != nil {
		t.Fatalf("argocd-server with the extension's volume empty: %v", err)
	}
	served := func() string {
		var body string
		env.WaitFor(t, time.Minute, "argocd-server to serve /extensions.js", func(context.Context) (bool, string) {
			var code int
			code, body = viaArgoCD(t, "GET", "/extensions.js", "", "")
			return code == http.StatusOK, fmt.Sprintf("%d %.200s", code, body)
		})
		return body
	}
	if body := served(); strings.Contains(body, extensionMarker) {
		t.Fatal("argocd-server serves the extension from an empty directory")
	}
	// /healthz?full=true checks its caches too, which answer 503 for a moment after a restart
	// (seen on CI): it must come to 200, not be 200 at the first ask.
	env.WaitFor(t, time.Minute, "argocd-server without the extension healthy (/healthz?full=true)", func(context.Context) (bool, string) {
		code, body := viaArgoCD(t, "GET", "/healthz?full=true", "", "")
		return code == http.StatusOK, fmt.Sprintf("%d %.200s", code, body)
	})
	writeConfigMapVolume(t, mount, map[string][]byte{vol.Path: js})
	if n := strings.Count(served(), extensionMarker); n != 1 {
		t.Fatalf("argocd-server serves the extension %d times from the ConfigMap's volume, want once", n)
	}
	t.Logf("argocd-server starts with the extension's volume empty, and serves the extension once from it as the kubelet lays out %s", vol.ConfigMap)

	shell, err := os.ReadFile(filepath.Join(dist, "test-shell.js"))
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(env.Dir, "tmp", "cmp-phase-ui")
	if err := os.MkdirAll(page, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(page, "test-shell.js"), shell, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(page, "shell.html"), []byte(shellPage), 0o644); err != nil {
		t.Fatal(err)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// writeConfigMapVolume lays files out in dir as the kubelet writes a ConfigMap volume (its
// atomic writer): the files in a directory named for the time, ..data a link to it, and each
// file's path a link through ..data. argocd-server's walk skips links, so it finds each file
// once, in the timed directory.
func writeConfigMapVolume(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	ts := time.Now().UTC().Format("..2006_01_02_15_04_05.000000000")
	if err := os.Mkdir(filepath.Join(dir, ts), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, b := range files {
		if err := os.WriteFile(filepath.Join(dir, ts, p), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(ts, filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	for p := range files {
		if err := os.Symlink(filepath.Join("..data", p), filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
}

// shellPage stands in for Argo CD's application page (ui/test/shell.tsx renders it): like
// Argo CD's index.html it has <base href="/"> and loads extensions.js deferred, after the
// page's own script has set window.React and window.extensionsAPI. Its styles are Argo CD's
// for the few elements it draws (layout.tsx's background, the status panel row and item of
// application-status-panel.scss, in argo-ui's light and dark theme colours); the
// extension brings its own. It loads the Application and its resource tree from
// argocd-server's API every 3 s.
const shellPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>cmp-phase extension (test shell)</title><base href="/">
<style>
html, body { margin: 0; font-family: sans-serif; }
.shell-layout { min-height: 100vh; }
.theme-light .shell-layout { background: #dee6eb; color: #495763; }
.theme-dark .shell-layout { background: #100f0f; color: #dee6eb; }
.shell-banner { padding: 6px 12px; background: #0dadea; color: #fff; font-size: 13px; }
.shell-toolbar { padding: 6px 12px; display: flex; gap: 12px; font-size: 12px; }
.shell-view-icon { cursor: pointer; font-style: normal; padding: 2px 6px; }
.shell-view-icon.selected { border-bottom: 2px solid #0dadea; }
.application-status-panel { display: flex; font-size: 0.875em; padding-bottom: 0.5em; box-shadow: 1px 1px 2px rgba(0, 0, 0, 0.1); }
.theme-light .application-status-panel { background: #fff; color: #495763; }
.theme-dark .application-status-panel { background: #303237; color: #dee6eb; }
.application-status-panel__item { margin-top: 5px; padding: 5px 20px; font-size: 0.8em; line-height: 1.2; display: flex; flex-direction: column; min-width: 250px; }
.theme-light .application-status-panel__item:not(:first-child) { border-left: 1px solid #dee6eb; }
.theme-dark .application-status-panel__item:not(:first-child) { border-left: 1px solid #495763; }
.application-status-panel__item-value { display: flex; align-items: baseline; margin-bottom: 0.5em; font-weight: 500; font-size: 2em; }
.shell-label { font-size: 12px; font-weight: 600; color: #6d7f8b; }
.shell-content { padding: 12px; }
.shell-flyout { position: fixed; top: 0; right: 0; bottom: 0; width: 70%; overflow: auto; box-shadow: -2px 0 8px rgba(0, 0, 0, 0.3); }
.theme-light .shell-flyout { background: #eff3f5; }
.theme-dark .shell-flyout { background: #28292a; }
</style></head>
<body>
<div id="root"></div>
<script src="/cmp-phase-ui/test-shell.js"></script>
<script>
const q = new URLSearchParams(location.search);
async function load() {
  const name = q.get('app');
  if (!name) { return; } // ?synthetic: the test calls cmpPhaseShell.synthetic itself
  const res = await fetch('/api/v1/applications/' + encodeURIComponent(name), {credentials: 'same-origin'});
  if (!res.ok) { document.getElementById('root').setAttribute('data-app-error', String(res.status)); return; }
  const app = await res.json();
  const tr = await fetch('/api/v1/applications/' + encodeURIComponent(name) + '/resource-tree?appNamespace=' + encodeURIComponent(app.metadata.namespace || ''), {credentials: 'same-origin'});
  const tree = tr.ok ? await tr.json() : {nodes: [], orphanedNodes: [], hosts: []};
  window.cmpPhaseShell.render(app, tree, {theme: q.get('theme') || 'light', view: q.get('view') || 'Rollout'});
}
load();
setInterval(load, 3000);
</script>
<script defer src="extensions.js"></script>
</body></html>
`
