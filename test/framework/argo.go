package framework

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// resourceInclusions keeps the application controller's cluster caches small: every
// "cluster" is the same API server, so watching everything would watch it N times.
const resourceInclusions = `- apiGroups: [""]
  kinds: [ConfigMap, Namespace, Secret, ServiceAccount, Service]
  clusters: ["*"]
- apiGroups: [batch]
  kinds: [Job]
  clusters: ["*"]
- apiGroups: [apps]
  kinds: [Deployment]
  clusters: ["*"]
- apiGroups: [argoproj.io]
  kinds: [Application, AppProject]
  clusters: ["https://kubernetes.default.svc"]
`

// installArgoCD applies Argo CD's CRDs (server-side: the ApplicationSet CRD is too large for
// client-side apply), the argocd namespace, its config objects and the default AppProject.
func (e *Env) installArgoCD(ctx context.Context) error {
	crds, err := filepath.Glob(filepath.Join(e.Tools.ArgoDir, "crds", "*.yaml"))
	if err != nil || len(crds) == 0 {
		return fmt.Errorf("argo cd crds not found in %s: run hack/build-tools.sh", e.Tools.ArgoDir)
	}
	for _, f := range crds {
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("read crd: %w", err)
		}
		if err := e.ApplyYAML(ctx, string(b)); err != nil {
			return err
		}
	}
	if err := e.waitCRDs(ctx, "applications.argoproj.io", "appprojects.argoproj.io", "applicationsets.argoproj.io"); err != nil {
		return err
	}
	password, secret, err := adminSecret()
	if err != nil {
		return err
	}
	e.AdminPassword = password
	cm, err := e.stockArgoCDConfig()
	if err != nil {
		return err
	}
	maps.Copy(cm, map[string]string{
		"admin.enabled": "true", "resource.inclusions": resourceInclusions,
		"application.resourceTrackingMethod":       "annotation",
		"resource.customizations.health.ConfigMap": degradableHealth,
	})
	objs := []string{
		fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, ArgoNamespace),
		cmJSON("argocd-cm", cm),
		cmJSON("argocd-rbac-cm", nil), cmJSON("argocd-cmd-params-cm", nil),
		cmJSON("argocd-tls-certs-cm", nil), cmJSON("argocd-ssh-known-hosts-cm", nil), cmJSON("argocd-gpg-keys-cm", nil),
		secret,
		fmt.Sprintf(`{"apiVersion":"argoproj.io/v1alpha1","kind":"AppProject","metadata":{"name":"default","namespace":%q},
		  "spec":{"sourceRepos":["*"],"destinations":[{"server":"*","namespace":"*"}],
		  "clusterResourceWhitelist":[{"group":"*","kind":"*"}]}}`, ArgoNamespace),
	}
	for _, o := range objs {
		if err := e.ApplyYAML(ctx, o); err != nil {
			return err
		}
	}
	return nil
}

// stockArgoCDConfig is the data of the argocd-cm Argo CD's install ships (its defaults, such
// as ignoring status-only updates of tracked resources), which hack/build-tools.sh copies
// from the module: the stack runs with what an install of Argo CD runs with.
func (e *Env) stockArgoCDConfig() (map[string]string, error) {
	path := filepath.Join(e.Tools.ArgoDir, "argocd-cm.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("argo cd's stock argocd-cm not found: %w (run hack/build-tools.sh)", err)
	}
	var cm corev1.ConfigMap
	if err := yaml.Unmarshal(b, &cm); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	return cm.Data, nil
}

func cmJSON(name string, data map[string]string) string {
	b, _ := json.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": ArgoNamespace, "labels": map[string]string{"app.kubernetes.io/part-of": "argocd"}},
		"data":     data,
	})
	return string(b)
}

func adminSecret() (password, obj string, err error) {
	raw := make([]byte, 18)
	if _, err := rand.Read(raw); err != nil {
		return "", "", fmt.Errorf("random: %w", err)
	}
	password = base64.RawURLEncoding.EncodeToString(raw)
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		return "", "", fmt.Errorf("bcrypt: %w", err)
	}
	b, _ := json.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "argocd-secret", "namespace": ArgoNamespace, "labels": map[string]string{"app.kubernetes.io/part-of": "argocd"}},
		"stringData": map[string]string{
			"admin.password": string(hash), "admin.passwordMtime": time.Now().UTC().Format(time.RFC3339),
			"server.secretkey": password + "-key",
		},
	})
	return password, string(b), nil
}

// registerClusters gives each cluster its own loopback address, a cluster Secret with its
// labels, and its own namespace (named after the cluster) to deploy into.
func (e *Env) registerClusters(ctx context.Context) error {
	for i, c := range e.opts.Clusters {
		port := e.apiPort
		if c.OwnAPIServer {
			oc, err := e.startOwnAPIServer(ctx, c)
			if err != nil {
				return err
			}
			e.mu.Lock()
			if e.owned == nil {
				e.owned = map[string]*ownCluster{}
			}
			e.owned[c.Name] = oc
			e.mu.Unlock()
			port = oc.port
		}
		server, err := e.forward(clusterIP(i), port)
		if err != nil {
			return err
		}
		c.Server = server
		e.Clusters = append(e.Clusters, c)
		if err := e.PutClusterSecret(ctx, c); err != nil {
			return err
		}
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.Name}}
		if _, err := e.ClusterKube(c.Name).CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create namespace %s: %w", c.Name, err)
		}
	}
	return nil
}

// PutClusterSecret creates or updates the Argo CD cluster Secret of c.
func (e *Env) PutClusterSecret(ctx context.Context, c Cluster) error {
	certData, keyData := e.PKI.AdminCert, e.PKI.AdminKey
	if oc, err := e.own(c.Name); err == nil { // its own identity, never the control plane's
		certData, keyData = oc.certData, oc.keyData
	}
	cfg, _ := json.Marshal(map[string]any{"tlsClientConfig": map[string]string{
		"caData":   base64.StdEncoding.EncodeToString(e.PKI.CACert),
		"certData": base64.StdEncoding.EncodeToString(certData),
		"keyData":  base64.StdEncoding.EncodeToString(keyData),
	}})
	labels := map[string]string{contract.LabelSecretType: contract.SecretTypeCluster}
	for k, v := range c.Labels {
		labels[k] = v
	}
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-" + c.Name, Namespace: ArgoNamespace, Labels: labels},
		StringData: map[string]string{"name": c.Name, "server": c.Server, "config": string(cfg)},
	}
	if e.opts.ScopedClusters {
		s.StringData["namespaces"], s.StringData["clusterResources"] = c.Name, "false"
	}
	secrets := e.Kube.CoreV1().Secrets(ArgoNamespace)
	if _, err := secrets.Create(ctx, s, metav1.CreateOptions{}); err != nil {
		if _, uerr := secrets.Update(ctx, s, metav1.UpdateOptions{}); uerr != nil {
			return fmt.Errorf("put cluster secret %s: %w", c.Name, uerr)
		}
	}
	return nil
}

func (e *Env) startRedis(ctx context.Context) error {
	port, err := FreePort()
	if err != nil {
		return err
	}
	e.redisAddr = "127.0.0.1:" + strconv.Itoa(port)
	p, err := e.Start(ProcSpec{Name: "redis", Path: "redis-server", Args: []string{
		"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--save", "", "--appendonly", "no",
		"--dir", filepath.Join(e.Dir, "tmp"),
	}})
	if err != nil {
		return err
	}
	return WaitTCP(ctx, p, e.redisAddr)
}

func (e *Env) startPlugins(ctx context.Context) error {
	for _, pl := range e.opts.Plugins {
		if _, err := e.StartPlugin(ctx, pl); err != nil {
			return err
		}
	}
	return nil
}

// StartPlugin starts a CMP sidecar and waits for its socket.
func (e *Env) StartPlugin(ctx context.Context, pl Plugin) (*Proc, error) {
	sock := filepath.Join(e.PluginSockDir, pl.Name+".sock")
	_ = os.Remove(sock)
	spec := pl.Start(e)
	if spec.Name == "" {
		spec.Name = "plugin-" + pl.Name
	}
	p, err := e.Start(spec)
	if err != nil {
		return nil, err
	}
	for {
		if _, err := os.Stat(sock); err == nil {
			return p, nil
		}
		if p.Exited() {
			return nil, fmt.Errorf("plugin %s exited before creating %s:\n%s", pl.Name, sock, p.Tail(4000))
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("plugin %s socket %s: %w", pl.Name, sock, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// StockCMPServer runs Argo CD's own argocd-cmp-server with the plugin.yaml in configDir.
func StockCMPServer(configDir string) func(e *Env) ProcSpec {
	return func(e *Env) ProcSpec {
		return ProcSpec{Path: e.Tools.ArgoCD, Args: []string{"--config-dir-path", configDir, "--loglevel", "info"},
			Env: e.argoEnv("argocd-cmp-server")}
	}
}

// argoEnv is the environment every Argo CD component gets (as in argo-cd's Procfile).
func (e *Env) argoEnv(binary string) []string {
	data := filepath.Join(e.Dir, "argocd-data")
	for _, d := range []string{"tls", "ssh", "gpg/keys", "gpg/source"} {
		_ = os.MkdirAll(filepath.Join(data, d), 0o755)
	}
	return []string{
		"ARGOCD_BINARY_NAME=" + binary,
		"KUBECONFIG=" + e.Kubeconfig,
		"ARGOCD_FAKE_IN_CLUSTER=true",
		contract.EnvPluginSocketDir + "=" + e.PluginSockDir,
		"ARGOCD_TLS_DATA_PATH=" + filepath.Join(data, "tls"),
		"ARGOCD_SSH_DATA_PATH=" + filepath.Join(data, "ssh"),
		"ARGOCD_GNUPGHOME=" + filepath.Join(data, "gpg", "keys"),
		"ARGOCD_GPG_DATA_PATH=" + filepath.Join(data, "gpg", "source"),
		"ARGOCD_GPG_ENABLED=false",
		"HOSTNAME=" + strings.TrimPrefix(binary, "argocd-") + "-0",
		"HOME=" + filepath.Join(e.Dir, "tmp"),
		// Milliseconds in log timestamps: the benchmark's hop timeline reads them.
		"ARGOCD_LOG_FORMAT_TIMESTAMP=2006-01-02T15:04:05.000Z07:00",
	}
}

// pluginTarExclusions is the repo-server's env entry for what manifests/base sets in
// argocd-cmd-params-cm (reposerver.plugin.tar.exclusions), read from that file, as Argo CD's
// install reads the key into the repo-server's env: the stack streams the plugin what an
// install with the Component does.
func pluginTarExclusions() (string, error) {
	path := filepath.Join(RepoRoot(), "manifests", "base", "cmd-params.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read the install's cmd params: %w", err)
	}
	var cm corev1.ConfigMap
	if err := yaml.Unmarshal(b, &cm); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return "ARGOCD_REPO_SERVER_PLUGIN_TAR_EXCLUSIONS=" + cm.Data["reposerver.plugin.tar.exclusions"], nil
}

// degradableHealth makes a ConfigMap Degraded when its data.degradedIn names its namespace,
// and Progressing (for ever) when its data.progressingIn does, so a test can make one
// cluster's child Degraded (DegradedWorkload) or never Healthy (ProgressingWorkload).
const degradableHealth = `hs = {status = "Healthy", message = "ok"}
if obj.data ~= nil and obj.data.degradedIn ~= nil and obj.data.degradedIn == obj.metadata.namespace then
  hs.status = "Degraded"
  hs.message = "marked Degraded in " .. obj.metadata.namespace
end
if obj.data ~= nil and obj.data.progressingIn ~= nil and obj.data.progressingIn == obj.metadata.namespace then
  hs.status = "Progressing"
  hs.message = "marked Progressing in " .. obj.metadata.namespace
end
return hs
`

// ArgoCDCLI runs the real argocd CLI (the multi-call binary under its own name) with its own
// config file under the environment's directory; Login first.
func (e *Env) ArgoCDCLI(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(e.Tools.ArgoDir, "argocd"), append(args, "--config", filepath.Join(e.Dir, "argocd-cli.config"))...)
	cmd.Env = append(baseEnv(), "HOME="+filepath.Join(e.Dir, "tmp"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Login logs the argocd CLI in to argocd-server as admin.
func (e *Env) Login(ctx context.Context) error {
	out, err := e.ArgoCDCLI(ctx, "login", e.ArgoServer, "--plaintext", "--username", "admin", "--password", e.AdminPassword)
	if err != nil {
		return fmt.Errorf("argocd login: %w: %s", err, out)
	}
	return nil
}
