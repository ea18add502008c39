//go:build e2e

package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cmp-phase/cmp-phase/internal/extension"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/status"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestUIExtension drives the Argo CD UI extension in headless Chromium against the real
// stack: argocd-server v3.5.7 with the proxy extension on, serving the built
// extension-cmp-phase.js from its own /extensions.js, and the real agent's endpoint behind
// it; users log in with ID tokens of a loopback OIDC issuer (local accounts have no groups).
//
// Argo CD's UI bundle cannot be built here (its argo-ui dependency is only on GitHub), so a
// test page stands in for the UI shell: served by argocd-server from its static assets, it
// provides window.React (React 19 from npm) and an extensionsAPI with Argo CD's
// registration signatures, loads /extensions.js, and renders the registered status panel
// item and app view with the real Application fetched from argocd-server's API with the
// user's real session token (the argocd.token cookie).
//
// It asserts: panel and grid show what `cmp-phase status -o json` shows at the same state
// generation, and change when the agent admits the next phase; with actions off the view
// shows the commands and no write endpoint answers; a user without `applications, get`
// is refused by argocd-server and sees no data; an approve click by a user outside the
// gate's group does not count, the same click by a user in it opens the gate and the
// rollout completes. Screenshots go to the artifacts directory it logs.
func TestUIExtension(t *testing.T) {
	// Not parallel: turning SSO on restarts argocd-server in-process, which the other tests'
	// calls to it must not meet; run first and alone, it leaves SSO on for them.
	u := startUI(t)
	u.groupsHeader()
	u.followsTheRollout()
	u.readOnly()
	u.approvals()
	u.b.atFleetSize(1000)
}

// uiRun is the browser test's rollout, its agents' endpoints, its users' tokens and the
// browser.
type uiRun struct {
	t              *testing.T
	ctx            context.Context
	r              *phased
	b              *browser
	rev            string
	rwAddr, roAddr string
	tokens         map[string]string
}

// startUI builds and installs the extension, starts the rollout's two agents (on one Lease,
// whichever leads drives it; each serves the endpoint: one with actions on and groups
// trusted, one read-only), turns on SSO with the test issuer, the extension (read-only
// first) and RBAC in argocd-server, commits v1 with a gated staging, and opens a browser.
func startUI(t *testing.T) *uiRun {
	t.Helper()
	ctx := context.Background()
	chromium, err := framework.Chromium()
	if err != nil {
		t.Fatal(err)
	}
	dist := buildUI(t)
	artifacts := uiArtifacts(t)
	installUI(t, dist)
	startEcho(t)
	u := &uiRun{t: t, ctx: ctx, r: newPhased(t, "ui-ext", "stop"), rwAddr: freeAddr(t), roAddr: freeAddr(t), tokens: map[string]string{}}
	u.r.edit = func(s string) string {
		if strings.Count(s, "        waitDuration: 10s\n") != 1 {
			t.Fatal("the phased spec no longer soaks staging for 10s")
		}
		// dev soaks 45 s: the page opens while the rollout is still at dev, so it sees the
		// next admission (it once opened with the rollout already at staging, and waited
		// for a change that only the approval brings).
		s = strings.Replace(s, "      - name: dev\n", "      - name: dev\n        waitDuration: 45s\n", 1)
		return strings.Replace(s, "        waitDuration: 10s\n", "        waitDuration: 10s\n        approval: {required: 1, groups: [sre], afterChecks: true}\n"+
			"        checks:\n        - name: smoke\n          type: http\n          http: {url: '"+echoURL+"/check', method: GET}\n", 1)
	}
	secret, secretFile := extensionSecret(t)
	for _, a := range [][]string{
		{"agent-ui-ext", "--extension-addr", u.rwAddr, "--extension-actions", "--extension-trust-groups"},
		{"agent-ui-ext-ro", "--extension-addr", u.roAddr},
	} {
		p := u.r.agent(a[0], nil, append(a[1:], "--extension-secret-file", secretFile, "--hook-allow-private")...)
		t.Cleanup(func() { p.Stop(5 * time.Second) })
	}
	idp, err := env.StartOIDC()
	if err != nil {
		t.Fatal(err)
	}
	configureArgoCD(ctx, t, idp, secret, u.roAddr)
	for user, groups := range map[string][]string{"alice": {"sre"}, "carol": {"dev"}, "dave": {"outsiders"}, "erin": nil} {
		if u.tokens[user], err = idp.Token(user, groups...); err != nil {
			t.Fatal(err)
		}
	}
	waitLoggedIn(t, u.tokens["alice"])
	u.rev = u.r.commit("v1", map[string]string{"v1": framework.Workload(u.r.name, "v1")})
	newParent(ctx, t, u.r.name, u.r.name+"/app", 0)
	u.r.waitState("the first rollout starts", func(st *state.State) bool { return st.Rollout != nil })
	u.b = newBrowser(t, chromium, artifacts)
	return u
}

// groupsHeader shows why --extension-trust-groups is off by default: argocd-server
// replaces the groups header of a user with groups, but passes on the browser's own for a
// user without.
func (u *uiRun) groupsHeader() {
	u.t.Helper()
	if got := forwardedGroups(u.t, u.tokens["alice"], "admins"); got != "sre" {
		u.t.Fatalf("argocd-server forwarded groups %q for alice (sre) claiming admins", got)
	}
	u.t.Logf("argocd-server forwards Argocd-User-Groups %q for erin (no groups) claiming sre", forwardedGroups(u.t, u.tokens["erin"], "sre"))
}

func (u *uiRun) gate(st *state.State) *state.ApprovalGate { return st.Rollout.Phases[1].Approval }

// followsTheRollout: the page agrees with the CLI, also after the next admission and at the
// approval gate (where it takes the screenshots).
func (u *uiRun) followsTheRollout() {
	u.t.Helper()
	b, r := u.b, u.r
	b.login(u.tokens["alice"])
	b.open(r.name)
	first := b.agreesWithCLI(r, func(s shown) bool { return s.Phase != "" })
	u.t.Logf("the page shows %s at %s (generation %d), as cmp-phase status -o json", first.Status, first.Phase, first.Generation)
	later := b.agreesWithCLI(r, func(s shown) bool { return s.Phase != first.Phase })
	u.t.Logf("after the agent admitted the next phase the page shows %s at %s (generation %d)", later.Status, later.Phase, later.Generation)
	r.waitState("staging asks for approval after its soak", func(st *state.State) bool { return u.gate(st) != nil && u.gate(st).AskedAt != nil })
	at := b.agreesWithCLI(r, func(s shown) bool { return strings.Contains(s.Waiting, "waiting for approvals 0 of 1 from sre") })
	u.t.Logf("at the gate the panel says %q", at.Waiting)
	b.shot("ui-panel-item.png", `[data-shell-panel]`)
	b.shot("ui-panel.png", `#root`) // the panel item and the view: the docs' image
}

// readOnly: with actions off the view shows the command and no write endpoint answers
// through argocd-server; a user without applications, get is refused by argocd-server;
// the agent's endpoint refuses what does not come through argocd-server.
func (u *uiRun) readOnly() {
	u.t.Helper()
	t := u.t
	cmd := u.b.text(`[data-testid=cmp-phase-command][data-verb=approve]`)
	if want := "cmp-phase approve ui-ext staging --reason"; !strings.HasPrefix(cmd, want) {
		t.Fatalf("with actions off the view shows %q, want %q…", cmd, want)
	}
	if u.b.count(`[data-testid=cmp-phase-action-approve]`) != 0 {
		t.Fatal("with actions off the view shows an approve button")
	}
	for _, verb := range []string{"approve", "reject", "pause", "resume", "promote"} {
		code, body := viaArgoCD(t, "POST", "/extensions/cmp-phase/api/v1/actions/"+verb, u.tokens["alice"], `{"phase":"staging","reason":"x"}`)
		if code != http.StatusNotFound && code != http.StatusMethodNotAllowed {
			t.Fatalf("with actions off, %s answered %d: %s", verb, code, body)
		}
	}
	code, body := viaArgoCD(t, "GET", "/extensions/cmp-phase/api/v1/status", u.tokens["dave"], "")
	if (code != http.StatusUnauthorized && code != http.StatusForbidden) || strings.Contains(body, "ui-ext") || strings.Contains(body, "phases") {
		t.Fatalf("a user without applications, get: %d %s", code, body)
	}
	t.Logf("a user without applications, get is refused by argocd-server: %d %q", code, strings.TrimSpace(body))
	resp, err := http.Get("http://" + u.roAddr + "/api/v1/status")
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the endpoint without the shared secret: %v %v", resp, err)
	}
	resp.Body.Close()
}

// approvals: with actions on (extension.config now names that endpoint), carol (dev)
// clicks approve and it does not count; alice (sre) clicks and the rollout completes.
func (u *uiRun) approvals() {
	u.t.Helper()
	t, b, r := u.t, u.b, u.r
	patchArgoCM(u.ctx, t, map[string]string{"extension.config": extensionConfig(u.rwAddr)})
	b.login(u.tokens["carol"])
	b.open(r.name)
	b.waitFor(`[data-testid=cmp-phase-action-approve]`)
	b.approve("carol's look: fine")
	st := r.waitState("carol's approval is recorded", func(st *state.State) bool { return len(u.gate(st).Approvals) == 1 })
	if a := u.gate(st).Approvals[0]; a.By != "carol@example.com" || a.Counted || !strings.Contains(a.Note, "not in sre") {
		t.Fatalf("carol (dev) clicked approve: %+v", a)
	}
	if st.Rollout.Phase != 1 || u.gate(st).OpenedAt != nil {
		t.Fatalf("the gate opened on carol's approval: %+v", u.gate(st))
	}
	b.waitFor(`[data-testid=cmp-phase-answer][data-by="carol@example.com"][data-counted=false]`)
	b.login(u.tokens["alice"])
	b.open(r.name)
	b.waitFor(`[data-testid=cmp-phase-action-approve]`)
	b.shot("ui-view-actions.png", `[data-testid=cmp-phase-view]`)
	b.approve("checks green")
	r.until("the rollout alice approved completes", u.rev, rollout.StatusCompleted, everywhere("v1"))
	st, err := r.state(u.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if g := u.gate(st); g.OpenedAt == nil || g.Counted() != 1 || !strings.Contains(st.Rollout.Phases[1].ApprovedBy, "alice@example.com") {
		t.Fatalf("the gate after alice's click: %+v approved by %q", g, st.Rollout.Phases[1].ApprovedBy)
	}
	b.agreesWithCLI(r, func(s shown) bool { return s.Status == string(rollout.StatusCompleted) })
	b.shot("ui-view-completed.png", `[data-testid=cmp-phase-view]`)
}

// atFleetSize renders the view over a made-up rollout of n children in the same browser
// (the page answers the extension's requests itself) and measures it: the time until the
// grid is in the page, and that the page holds a window of rows, not n; scrolled to the end
// it shows the last child.
func (b *browser) atFleetSize(n int) {
	b.t.Helper()
	b.do("open the page for the synthetic rollout", chromedp.Navigate("http://"+env.ArgoServer+"/cmp-phase-ui/shell.html?synthetic"),
		chromedp.WaitReady(chromedp.CSS(`#root`)))
	type measure struct {
		MS        float64 `json:"ms"`
		Rows      int     `json:"rows"`
		PhaseRows int     `json:"phaseRows"`
	}
	raw := runIn(b, "render the synthetic rollout", chromedp.Evaluate[string](fmt.Sprintf(`window.cmpPhaseShell.synthetic(%d).then(m => JSON.stringify(m))`, n), chromedp.EvalAwaitPromise))
	var m measure
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		b.t.Fatalf("the synthetic rollout: %v: %s", err, raw)
	}
	b.t.Logf("%d children: the grid was in the page after %.0f ms, holding %d rows (%d of the %d-child phase)", n, m.MS, m.Rows, m.PhaseRows, n-50)
	if m.PhaseRows > 40 || m.MS > 3000 {
		b.t.Fatalf("at %d children the view is not windowed or slow: %+v", n, m)
	}
	last := fmt.Sprintf("synthetic-prod-%04d", n-51)
	b.do("scroll to the last child",
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const w = document.querySelector('[data-testid=cmp-phase-window][data-rows="%d"]'); w.scrollTop = w.scrollHeight; })()`, n-50)),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`[data-testid=cmp-phase-row][data-cluster=%q]`, last))))
	b.shot("ui-view-1000.png", `[data-testid=cmp-phase-view]`)
}

// buildUI type-checks and builds the extension and the test shell from the project's own
// files (npm ci from the lock file) and returns ui/dist.
func buildUI(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(framework.RepoRoot(), "ui")
	for _, args := range [][]string{{"ci", "--no-audit", "--no-fund"}, {"run", "typecheck"}, {"run", "build"}} {
		cmd := exec.Command("npm", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm %v in %s: %v\n%s", args, dir, err, out)
		}
	}
	return filepath.Join(dir, "dist")
}

// uiArtifacts is where the screenshots go: $CMP_PHASE_UI_ARTIFACTS, else a new temp dir
// (kept after the test).
func uiArtifacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("CMP_PHASE_UI_ARTIFACTS")
	var err error
	if dir == "" {
		dir, err = os.MkdirTemp("", "cmp-phase-ui-artifacts-")
	} else {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

// installUI puts the extension where argocd-server serves extensions from (its fixed
// /tmp/extensions, as the argocd-extension-installer init container does) and the test
// shell page in its static assets.
func installUI(t *testing.T, dist string) {
	t.Helper()
	js, err := os.ReadFile(filepath.Join(dist, "extension-cmp-phase.js"))
	if err != nil {
		t.Fatal(err)
	}
	extDir := filepath.Join("/tmp/extensions", fmt.Sprintf("cmp-phase-e2e-%d", os.Getpid()))
	if err := os.MkdirAll(extDir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(extDir) })
	if err := os.WriteFile(filepath.Join(extDir, "extension-cmp-phase.js"), js, 0o644); err != nil {
		t.Fatal(err)
	}
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

// shellPage stands in for Argo CD's application page: the shell, then argocd-server's own
// /extensions.js, then the parent fetched from argocd-server's API every 3 s.
const shellPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>cmp-phase extension (test shell)</title></head>
<body style="margin:0;background:#fff">
<div style="padding:6px 12px;background:#0dadea;color:#fff;font:13px sans-serif">Test shell standing in for Argo CD's UI (its bundle cannot be built here) · argocd-server, the extension and the data are real</div>
<div id="root"></div>
<script src="/cmp-phase-ui/test-shell.js"></script>
<script src="/extensions.js"></script>
<script>
async function load() {
  const name = new URLSearchParams(location.search).get('app');
  if (!name) { return; } // ?synthetic: the test calls cmpPhaseShell.synthetic itself
  const res = await fetch('/api/v1/applications/' + encodeURIComponent(name), {credentials: 'same-origin'});
  if (!res.ok) { document.getElementById('root').setAttribute('data-app-error', String(res.status)); return; }
  window.cmpPhaseShell.render(await res.json());
}
load();
setInterval(load, 3000);
</script>
</body></html>
`

func extensionSecret(t *testing.T) (string, string) {
	t.Helper()
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		t.Fatal(err)
	}
	secret := hex.EncodeToString(raw)
	path := filepath.Join(env.Dir, "tmp", "ui-ext.secret")
	if err := os.WriteFile(path, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return secret, path
}

func freeAddr(t *testing.T) string {
	t.Helper()
	p, err := framework.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return "127.0.0.1:" + strconv.Itoa(p)
}

// extensionConfig is argocd-cm's extension.config naming the agent's endpoint at addr (the
// shared secret by its reference to the labelled Secret cmp-phase-extension, as
// manifests/extension has it) and, as cmp-phase-echo, the test's echo of what argocd-server
// forwards.
func extensionConfig(addr string) string {
	return fmt.Sprintf(`extensions:
- name: cmp-phase
  backend:
    services:
    - url: http://%s
      headers:
      - name: %s
        value: '$cmp-phase-extension:secret'
- name: cmp-phase-echo
  backend:
    services:
    - url: %s
`, addr, extension.DefaultSecretHeader, echoURL)
}

// echoURL is the test's echo server: it answers the identity headers argocd-server forwarded.
var echoURL string

func startEcho(t *testing.T) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"user": r.Header.Get(extension.HeaderUsername), "groups": r.Header.Get(extension.HeaderGroups)})
	}))
	t.Cleanup(srv.Close)
	echoURL = srv.URL
}

// forwardedGroups is the Argocd-User-Groups argocd-server forwards for token's user when the
// browser sends claimed.
func forwardedGroups(t *testing.T, token, claimed string) string {
	t.Helper()
	req, err := http.NewRequest("GET", "http://"+env.ArgoServer+"/extensions/cmp-phase-echo/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: "argocd.token", Value: token})
	req.Header.Set("Argocd-Application-Name", framework.ArgoNamespace+":ui-ext")
	req.Header.Set("Argocd-Project-Name", "default")
	req.Header.Set(extension.HeaderGroups, claimed)
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the echo extension: %d %v", resp.StatusCode, err)
	}
	return got["groups"]
}

// configureArgoCD puts the shared secret in the labelled Secret cmp-phase-extension, SSO with the test issuer and the
// extension in argocd-cm, and RBAC: groups sre and dev may read applications and invoke the
// extension, and so may erin, a user without groups; group outsiders may only invoke it.
func configureArgoCD(ctx context.Context, t *testing.T, idp *framework.OIDC, secret, addr string) {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "cmp-phase-extension", Namespace: framework.ArgoNamespace,
		Labels: map[string]string{"app.kubernetes.io/part-of": "argocd"}}, StringData: map[string]string{"secret": secret}}
	if _, err := env.Kube.CoreV1().Secrets(framework.ArgoNamespace).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rbac, err := env.Kube.CoreV1().ConfigMaps(framework.ArgoNamespace).Get(ctx, "argocd-rbac-cm", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	policy := rbac.Data["policy.csv"] + `p, role:rollout-steer, applications, get, default/*, allow
p, role:rollout-steer, extensions, invoke, cmp-phase, allow
p, role:rollout-steer, extensions, invoke, cmp-phase-echo, allow
p, role:extension-only, extensions, invoke, cmp-phase, allow
g, sre, role:rollout-steer
g, dev, role:rollout-steer
g, erin, role:rollout-steer
g, outsiders, role:extension-only
`
	patch, _ := json.Marshal(map[string]any{"data": map[string]string{"policy.csv": policy}})
	if _, err := env.Kube.CoreV1().ConfigMaps(framework.ArgoNamespace).Patch(ctx, "argocd-rbac-cm", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	// argocd-server restarts itself in-process on a new url or oidc.config.
	patchArgoCM(ctx, t, map[string]string{"url": "http://" + env.ArgoServer, "oidc.config": idp.ArgoCDConfig(), "extension.config": extensionConfig(addr)})
}

func patchArgoCM(ctx context.Context, t *testing.T, data map[string]string) {
	t.Helper()
	patch, _ := json.Marshal(map[string]any{"data": data})
	if _, err := env.Kube.CoreV1().ConfigMaps(framework.ArgoNamespace).Patch(ctx, "argocd-cm", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitLoggedIn waits until argocd-server (restarted with SSO) takes token as a user in a group.
func waitLoggedIn(t *testing.T, token string) {
	t.Helper()
	env.WaitFor(t, 90*time.Second, "argocd-server to accept the test issuer's tokens", func(ctx context.Context) (bool, string) {
		code, body := viaArgoCD(t, "GET", "/api/v1/session/userinfo", token, "")
		return code == http.StatusOK && strings.Contains(body, `"loggedIn":true`) && strings.Contains(body, "sre"), fmt.Sprintf("%d %s", code, body)
	})
}

// viaArgoCD calls argocd-server as the token's user, naming the parent ui-ext as the UI
// extension does.
func viaArgoCD(t *testing.T, method, path, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+env.ArgoServer+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: "argocd.token", Value: token})
	req.Header.Set("Argocd-Application-Name", framework.ArgoNamespace+":ui-ext")
	req.Header.Set("Argocd-Project-Name", "default")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}

// browser is one headless Chromium tab on the shell page.
type browser struct {
	t         *testing.T
	ctx       context.Context
	artifacts string
}

func newBrowser(t *testing.T, chromium, artifacts string) *browser {
	t.Helper()
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), framework.BrowserOptions(chromium, t.TempDir())...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil { // the first run starts the browser; no timeout on it
		t.Fatalf("start chromium: %v", err)
	}
	return &browser{t: t, ctx: ctx, artifacts: artifacts}
}

// within runs f with a context bounded to a minute.
func within[T any](b *browser, what string, f func(ctx context.Context) (T, error)) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	v, err := f(ctx)
	if err != nil {
		b.t.Fatalf("browser: %s: %v", what, err)
	}
	return v
}

func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	within(b, what, func(ctx context.Context) (chromedp.Void, error) { return chromedp.Void{}, chromedp.Do(ctx, steps...) })
}

func runIn[T any](b *browser, what string, a chromedp.Action[T]) T {
	b.t.Helper()
	return within(b, what, func(ctx context.Context) (T, error) { return chromedp.Run(ctx, a) })
}

// login sets the session cookie Argo CD's SSO login sets.
func (b *browser) login(token string) {
	b.t.Helper()
	httpOnly := true
	within(b, "set the session cookie", func(ctx context.Context) (cdp.Empty, error) {
		return chromedp.Call(ctx, network.SetCookie, network.SetCookieParams{Name: "argocd.token", Value: token, URL: "http://" + env.ArgoServer, Path: "/", HTTPOnly: &httpOnly})
	})
}

// open loads the shell page for the parent and waits for both registered components.
func (b *browser) open(parent string) {
	b.t.Helper()
	b.do("open the shell page",
		chromedp.Navigate("http://"+env.ArgoServer+"/cmp-phase-ui/shell.html?app="+parent),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=cmp-phase-panel][data-generation]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=cmp-phase-view][data-generation]`)),
	)
	registered := runIn(b, "count the registrations", chromedp.Evaluate[string](`JSON.stringify([window.cmpPhaseShell.registered.statusPanel.length, window.cmpPhaseShell.registered.appView.length])`))
	if registered != "[1,1]" {
		b.t.Fatalf("the extension registered [status panel items, app views] %s, want [1,1]", registered)
	}
}

func (b *browser) waitFor(sel string) {
	b.t.Helper()
	b.do("wait for "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
}

func (b *browser) text(sel string) string {
	b.t.Helper()
	return strings.TrimSpace(runIn(b, "read "+sel, chromedp.Text(chromedp.CSS(sel))))
}

func (b *browser) count(sel string) int {
	b.t.Helper()
	return runIn(b, "count "+sel, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)))
}

// approve types the reason and clicks approve, and waits for the endpoint's answer.
func (b *browser) approve(reason string) {
	b.t.Helper()
	b.do("click approve",
		chromedp.SendKeys(chromedp.CSS(`[data-testid=cmp-phase-reason]`), reason),
		chromedp.Click(chromedp.CSS(`[data-testid=cmp-phase-action-approve]`)),
	)
	env.WaitFor(b.t, 20*time.Second, "the approval to be recorded", func(context.Context) (bool, string) {
		got := b.text(`[data-testid=cmp-phase-action-result]`)
		return strings.Contains(got, "approve recorded"), got
	})
}

func (b *browser) shot(name, sel string) {
	b.t.Helper()
	png := runIn(b, "screenshot "+name, chromedp.Screenshot(chromedp.CSS(sel), chromedp.NodeVisible))
	if err := os.WriteFile(filepath.Join(b.artifacts, name), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// shown is what the page shows: the panel and the grid.
type shown struct {
	Generation, ViewGeneration int64
	Status, Phase, Admitted    string
	Waiting                    string
	Phases                     []shownPhase
	Hooks                      []shownHook
}

type shownHook struct{ Key, Status string }

type shownPhase struct {
	Name, Status      string
	Admitted, Members int
	Clusters          []shownCluster
}

type shownCluster struct{ Name, Status string }

const readPage = `(() => {
  const q = s => document.querySelector(s);
  const txt = s => (q(s) ? q(s).textContent.trim() : '');
  return JSON.stringify({
    Generation: +q('[data-testid=cmp-phase-panel]').dataset.generation,
    ViewGeneration: +q('[data-testid=cmp-phase-view]').dataset.generation,
    Status: txt('[data-testid=cmp-phase-status]').replace(/^● /, ''),
    Phase: txt('[data-testid=cmp-phase-phase]'),
    Admitted: txt('[data-testid=cmp-phase-admitted]'),
    Waiting: txt('[data-testid=cmp-phase-waiting]'),
    Phases: [...document.querySelectorAll('[data-testid=cmp-phase-phase-group]')].map(g => ({
      Name: g.dataset.phase, Status: g.dataset.status, Admitted: +g.dataset.admitted, Members: +g.dataset.members,
      Clusters: [...g.querySelectorAll('[data-testid=cmp-phase-row]')].map(r => ({Name: r.dataset.cluster, Status: r.dataset.status})),
    })),
    Hooks: [...document.querySelectorAll('[data-testid=cmp-phase-hook]')].map(h => ({Key: h.dataset.key, Status: h.dataset.status})),
  });
})()`

func (b *browser) read() shown {
	b.t.Helper()
	raw := runIn(b, "read the page", chromedp.Evaluate[string](readPage))
	var s shown
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		b.t.Fatalf("read the page: %v: %s", err, raw)
	}
	return s
}

// agreesWithCLI waits until the page, as want accepts it, shows the generation `cmp-phase
// status -o json` prints, and then shows what it prints: status, phase, admitted n/m, and
// every phase with its admitted children and their status, and every hook and check with
// its ledger status.
func (b *browser) agreesWithCLI(r *phased, want func(shown) bool) shown {
	b.t.Helper()
	var s shown
	env.WaitFor(b.t, 4*time.Minute, "the page to show what cmp-phase status -o json shows", func(context.Context) (bool, string) {
		s = b.read()
		var doc status.Doc
		if err := json.Unmarshal([]byte(r.cli("status", r.name, "-o", "json")), &doc); err != nil {
			b.t.Fatalf("cmp-phase status -o json: %v", err)
		}
		if s.Generation != doc.Generation || s.ViewGeneration != doc.Generation || !want(s) {
			return false, fmt.Sprintf("page generation %d/%d, cli %d; page %+v", s.Generation, s.ViewGeneration, doc.Generation, s)
		}
		if diff := sameAsDoc(s, doc); diff != "" {
			b.t.Fatalf("at generation %d the page differs from cmp-phase status -o json: %s", doc.Generation, diff)
		}
		return true, ""
	})
	return s
}

// sameAsDoc says how the page differs from the document ("" when it does not).
func sameAsDoc(s shown, d status.Doc) string {
	if s.Status != d.Status || s.Phase != d.Phase {
		return fmt.Sprintf("status %q at %q, the document %q at %q", s.Status, s.Phase, d.Status, d.Phase)
	}
	if len(s.Phases) != len(d.Phases) {
		return fmt.Sprintf("%d phases, the document %d", len(s.Phases), len(d.Phases))
	}
	for i, p := range d.Phases {
		g := s.Phases[i]
		if g.Name != p.Name || g.Status != p.Status || g.Admitted != p.Admitted || g.Members != p.Members || len(g.Clusters) != len(p.Clusters) {
			return fmt.Sprintf("phase %d: %+v, the document %s %s %d/%d with %d clusters", i, g, p.Name, p.Status, p.Admitted, p.Members, len(p.Clusters))
		}
		for j, c := range p.Clusters {
			if g.Clusters[j] != (shownCluster{Name: c.Name, Status: c.Status}) {
				return fmt.Sprintf("phase %s row %d: %+v, the document %s %s", p.Name, j, g.Clusters[j], c.Name, c.Status)
			}
		}
		if p.Name == d.Phase && p.Track == "" && s.Admitted != fmt.Sprintf("%d/%d admitted", p.Admitted, p.Members) {
			return fmt.Sprintf("the panel says %q, the document %d/%d", s.Admitted, p.Admitted, p.Members)
		}
	}
	var hooks []shownHook
	for _, p := range d.Phases {
		for _, h := range p.Hooks {
			hooks = append(hooks, shownHook{Key: h.Key, Status: h.Status})
		}
	}
	if !slices.Equal(s.Hooks, hooks) {
		return fmt.Sprintf("hooks and checks %+v, the document %+v", s.Hooks, hooks)
	}
	return ""
}
