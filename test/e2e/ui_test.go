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
	"path/filepath"
	"regexp"
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

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/extension"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/status"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestUIExtension drives the Argo CD UI extension in headless Chromium against the real
// stack: argocd-server with the proxy extension on, serving the extension-cmp-phase.js the
// release packs, laid out as manifests/extension's ConfigMap volume puts it under its
// extensions directory, and the real agent's endpoint behind it; users log in with ID tokens
// of a loopback OIDC issuer (local accounts have no groups).
//
// Argo CD's UI bundle cannot be built here (its argo-ui dependency is only on GitHub), so a
// page stands in for the application page: served by argocd-server from its static assets,
// it runs Argo CD's own extensions-service.ts (from the argo-cd module of the Argo CD the
// stack runs) as the registration API, sets window.React as Argo CD does, loads
// /extensions.js, and renders what was registered as Argo CD's application page does, with
// the real Application and resource tree fetched from argocd-server's API with the user's
// real session token (the argocd.token cookie). buildUI type-checks the extension and the
// page against that Argo CD's definitions and checks the page's render sites against its
// source.
//
// It asserts: argocd-server starts and serves /extensions.js with the extension's directory
// empty (its ConfigMap missing), and serves the extension once when it is there; the
// extension's own extension.config.cmp-phase and another proxy extension in the shared
// extension.config both answer through argocd-server, also after the extension's key
// changes; panel and grid show what `cmp-phase status -o json` shows at the same state
// generation, and change when the agent admits the next phase; Argo CD's dark and light
// theme colour it; it shows only on parents (not on their children, multi-source parents
// too) and its status panel item opens the flyout; with actions off the view shows the
// commands and no write endpoint answers; a user without `applications, get` is refused by
// argocd-server and sees no data; an approve click by a user outside the gate's group does
// not count, the same click by a user in it opens the gate and the rollout completes.
// Screenshots go to the artifacts directory it logs.
func TestUIExtension(t *testing.T) {
	// Not parallel: turning SSO on restarts argocd-server in-process, which the other tests'
	// calls to it must not meet; run first and alone, it leaves SSO on for them.
	u := startUI(t)
	u.groupsHeader()
	u.bothProxyExtensions()
	u.followsTheRollout()
	u.themes()
	u.onlyOnParents()
	u.flyout()
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

// startUI builds and installs the extension (as manifests/extension mounts it, after showing
// argocd-server starts without it), starts the rollout's two agents (on one Lease, whichever
// leads drives it; each serves the endpoint: one with actions on and groups trusted, one
// read-only), turns on SSO with the test issuer, the extension (read-only first), another
// proxy extension and RBAC in argocd-server, commits v1 with a gated staging, and opens a
// browser.
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
	b.shot("ui-panel-item.png", `[data-shell=status-panel]`)
	b.shot("ui-panel.png", `#root`) // the panel item and the view: the docs' image
}

// bothProxyExtensions: the extension's own extension.config.cmp-phase and another proxy
// extension in the shared extension.config (echo, a tiny backend of its own) both answer
// through argocd-server.
func (u *uiRun) bothProxyExtensions() {
	u.t.Helper()
	env.WaitFor(u.t, 2*time.Minute, "both proxy extensions to answer through argocd-server", func(context.Context) (bool, string) {
		code, body := viaArgoCD(u.t, "GET", "/extensions/cmp-phase/api/v1/status", u.tokens["alice"], "")
		ecode, ebody := viaArgoCD(u.t, "GET", "/extensions/echo/", u.tokens["alice"], "")
		var doc status.Doc
		var echo map[string]string
		ok := code == http.StatusOK && json.Unmarshal([]byte(body), &doc) == nil && doc.Rollout == "ui-ext" &&
			ecode == http.StatusOK && json.Unmarshal([]byte(ebody), &echo) == nil && echo["user"] == "alice@example.com"
		return ok, fmt.Sprintf("cmp-phase %d %.200s; echo %d %.200s", code, body, ecode, ebody)
	})
}

// argoThemes are the colours of argo-ui's $themes (src/styles/theme.scss), which Argo CD
// compiles under .theme-light and .theme-dark: background-2, text-1, text-2.
var argoThemes = map[string]struct{ Background, Text, Strong string }{
	"light": {"rgb(255, 255, 255)", "rgb(73, 87, 99)", "rgb(54, 60, 74)"},
	"dark":  {"rgb(48, 50, 55)", "rgb(222, 230, 235)", "rgb(255, 255, 255)"},
}

// themes: under Argo CD's theme classes the view takes that theme's colours, and its status
// colours are those of Argo CD's colors.ts (read from the argo-cd module); a screenshot of
// each theme.
func (u *uiRun) themes() {
	u.t.Helper()
	b := u.b
	status := argoStatusColors(u.t)
	for _, theme := range []string{"dark", "light"} {
		b.openThemed(u.r.name, theme)
		raw := runIn(b, "read the colours", chromedp.Evaluate[string](`(() => {
  const c = (sel, p) => { const e = document.querySelector(sel); return e ? getComputedStyle(e)[p] : 'missing ' + sel; };
  return JSON.stringify({
    Background: c('[data-shell-view] [data-testid=cmp-phase-root]', 'backgroundColor'),
    Text: c('[data-shell-view] [data-testid=cmp-phase-root]', 'color'),
    Strong: c('[data-shell-view] [data-testid=cmp-phase-header] .cmp-phase-strong', 'color'),
    Running: c('[data-shell=status-panel] [data-testid=cmp-phase-status]', 'color'),
    Done: c('[data-shell-view] [data-testid=cmp-phase-row][data-status=Done] > span:nth-child(2)', 'color'),
  });
})()`))
		var got struct{ Background, Text, Strong, Running, Done string }
		if err := json.Unmarshal([]byte(raw), &got); err != nil {
			u.t.Fatalf("the colours: %v: %s", err, raw)
		}
		want := argoThemes[theme]
		if got.Background != want.Background || got.Text != want.Text || got.Strong != want.Strong ||
			got.Running != status["ARGO_RUNNING_COLOR"] || got.Done != status["ARGO_SUCCESS_COLOR"] {
			u.t.Fatalf("in Argo CD's %s theme the extension is drawn %+v, want %+v, running %s and done %s", theme, got, want, status["ARGO_RUNNING_COLOR"], status["ARGO_SUCCESS_COLOR"])
		}
		b.shot("ui-"+theme+".png", `#root`)
	}
	u.t.Log("the extension takes Argo CD's dark and light theme colours")
}

// argoStatusColors are Argo CD's status colours (ui/src/app/shared/components/colors.ts) as
// computed styles give them: rgb(r, g, b).
func argoStatusColors(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(argoCDModule(t), "ui", "src", "app", "shared", "components", "colors.ts"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`export const (ARGO_\w+_COLOR) = '#([0-9a-fA-F]{6})';`).FindAllStringSubmatch(string(b), -1) {
		v, err := strconv.ParseUint(m[2], 16, 32)
		if err != nil {
			t.Fatal(err)
		}
		out[m[1]] = fmt.Sprintf("rgb(%d, %d, %d)", v>>16, (v>>8)&0xff, v&0xff)
	}
	if out["ARGO_RUNNING_COLOR"] == "" || out["ARGO_SUCCESS_COLOR"] == "" {
		t.Fatalf("no status colours in Argo CD's colors.ts: %v", out)
	}
	return out
}

// onlyOnParents: on a child of the rollout (an Application whose source names no plugin)
// Argo CD's registry offers no Rollout view (shouldDisplay), the page falls back to the
// tree, and the status panel has no rollout item; a parent naming the plugin in one of
// several sources shows both.
func (u *uiRun) onlyOnParents() {
	u.t.Helper()
	t, b := u.t, u.b
	var doc status.Doc
	if err := json.Unmarshal([]byte(u.r.cli("status", u.r.name, "-o", "json")), &doc); err != nil || len(doc.Children) == 0 {
		t.Fatalf("the rollout's children: %v %+v", err, doc)
	}
	child := doc.Children[0].Name
	b.do("open a child's page", chromedp.Navigate("http://"+env.ArgoServer+"/cmp-phase-ui/shell.html?app="+child),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`[data-shell-app=%q]`, child))))
	env.WaitFor(t, 30*time.Second, "the extension to register", func(context.Context) (bool, string) {
		got := runIn(b, "read the registry", chromedp.Evaluate[string](`JSON.stringify(window.cmpPhaseShell.registered())`))
		return strings.Contains(got, `"appView":[{`), got
	})
	time.Sleep(2 * time.Second) // a panel item would have polled by now
	shownFor := runIn(b, "ask the registry", chromedp.Evaluate[string](`JSON.stringify(window.cmpPhaseShell.registered(window.cmpPhaseShell.app))`))
	if !strings.Contains(shownFor, `"shown":false`) || b.count(`[data-shell-view-icon=Rollout]`) != 0 || b.count(`[data-shell-view=tree]`) != 1 ||
		b.count(`[data-testid=cmp-phase-panel]`) != 0 || b.count(`.cmp-phase`) != 0 {
		t.Fatalf("on the child %s the extension shows: registry %s, Rollout icon %d, tree %d, panel items %d", child, shownFor,
			b.count(`[data-shell-view-icon=Rollout]`), b.count(`[data-shell-view=tree]`), b.count(`[data-testid=cmp-phase-panel]`))
	}
	// Sources as Argo CD's Application carries them: which the registry shows the view for.
	cases := runIn(b, "ask the registry about sources", chromedp.Evaluate[string](`(() => {
  const app = spec => ({metadata: {name: 'x', namespace: 'argocd'}, spec: Object.assign({project: 'default', destination: {}}, spec), status: {}});
  const shown = spec => window.cmpPhaseShell.registered(app(spec)).appView.map(v => v.shown).join();
  const git = {repoURL: 'https://git.example/r', path: 'p'};
  return JSON.stringify({
    source: shown({source: Object.assign({plugin: {name: '`+contract.PluginName+`', env: []}}, git), sources: []}),
    sources: shown({sources: [git, Object.assign({plugin: {name: '`+contract.PluginName+`', env: []}}, git)]}),
    otherPlugin: shown({source: Object.assign({plugin: {name: 'other-v1', env: []}}, git)}),
    directory: shown({source: git}),
  });
})()`))
	if cases != `{"source":"true","sources":"true","otherPlugin":"false","directory":"false"}` {
		t.Fatalf("shouldDisplay by source: %s", cases)
	}
	t.Logf("on the child %s no Rollout view and no panel item; shown for sources %s", child, cases)
}

// flyout: a click on the status panel item opens the Rollout as its flyout.
func (u *uiRun) flyout() {
	u.t.Helper()
	b := u.b
	b.open(u.r.name)
	b.do("open the flyout", chromedp.Click(chromedp.CSS(`[data-shell=status-panel] [data-testid=cmp-phase-panel]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-shell-flyout=cmp-phase] [data-testid=cmp-phase-view][data-generation]`)))
	b.shot("ui-flyout.png", `[data-shell-flyout]`)
	b.do("close the flyout", chromedp.Click(chromedp.CSS(`[data-shell-flyout-close]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`[data-shell-flyout]`)))
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
	patchArgoCM(u.ctx, t, map[string]string{ourKey: ourExtensionConfig(t, u.rwAddr)})
	u.bothProxyExtensions() // a change of the extension's key leaves the other as it was
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
	b.shot("ui-view-actions.png", `[data-shell-view] [data-testid=cmp-phase-view]`)
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
	b.shot("ui-view-completed.png", `[data-shell-view] [data-testid=cmp-phase-view]`)
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
	// once the deferred /extensions.js has registered the extension
	raw := runIn(b, "render the synthetic rollout", chromedp.Evaluate[string](fmt.Sprintf(`new Promise(ok => {
  const registered = () => window.cmpPhaseShell.registered().appView.length ? ok() : setTimeout(registered, 20);
  registered();
}).then(() => window.cmpPhaseShell.synthetic(%d)).then(m => JSON.stringify(m))`, n), chromedp.EvalAwaitPromise))
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
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const w = document.querySelector('[data-shell-view] [data-testid=cmp-phase-window][data-rows="%d"]'); w.scrollTop = w.scrollHeight; })()`, n-50)),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`[data-shell-view] [data-testid=cmp-phase-row][data-cluster=%q]`, last))))
	b.shot("ui-view-1000.png", `[data-shell-view] [data-testid=cmp-phase-view]`)
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
	req, err := http.NewRequest("GET", "http://"+env.ArgoServer+"/extensions/echo/", nil)
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

// configureArgoCD puts the shared secret in the labelled Secret cmp-phase-extension; SSO with
// the test issuer, the extension under its own key (manifests/extension's, naming the agent
// at addr) and another proxy extension (echo) in the shared extension.config in argocd-cm;
// and RBAC: groups sre and dev may read applications and invoke both extensions, and so may
// erin, a user without groups; group outsiders may only invoke cmp-phase.
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
p, role:rollout-steer, extensions, invoke, echo, allow
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
	patchArgoCM(ctx, t, map[string]string{"url": "http://" + env.ArgoServer, "oidc.config": idp.ArgoCDConfig(),
		ourKey: ourExtensionConfig(t, addr), "extension.config": echoConfig()})
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

// open loads the page for the parent in Argo CD's light theme (openThemed: the theme
// given) and waits for both registered components; Argo CD's registry must hold exactly the
// extension's status panel item (with its flyout) and its Rollout view, shown for the parent.
func (b *browser) open(parent string) { b.openThemed(parent, "light") }

func (b *browser) openThemed(parent, theme string) {
	b.t.Helper()
	b.do("open the shell page",
		chromedp.Navigate("http://"+env.ArgoServer+"/cmp-phase-ui/shell.html?theme="+theme+"&app="+parent),
		chromedp.WaitVisible(chromedp.CSS(`.theme-`+theme+` [data-shell=status-panel] [data-testid=cmp-phase-panel][data-generation]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-shell-view=Rollout] [data-testid=cmp-phase-view][data-generation]`)),
	)
	registered := runIn(b, "read the registry", chromedp.Evaluate[string](`JSON.stringify(window.cmpPhaseShell.registered(window.cmpPhaseShell.app))`))
	if want := `{"statusPanel":[{"title":"Rollout","id":"cmp-phase","flyout":true}],"appView":[{"title":"Rollout","icon":"fa-layer-group","shown":true}]}`; registered != want {
		b.t.Fatalf("Argo CD's registry holds %s, want %s", registered, want)
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
  const panel = '[data-shell=status-panel] ', view = '[data-shell-view] ';
  return JSON.stringify({
    Generation: +q(panel + '[data-testid=cmp-phase-panel]').dataset.generation,
    ViewGeneration: +q(view + '[data-testid=cmp-phase-view]').dataset.generation,
    Status: txt(panel + '[data-testid=cmp-phase-status]').replace(/^● /, ''),
    Phase: txt(panel + '[data-testid=cmp-phase-phase]'),
    Admitted: txt(panel + '[data-testid=cmp-phase-admitted]'),
    Waiting: txt(panel + '[data-testid=cmp-phase-waiting]'),
    Phases: [...document.querySelectorAll(view + '[data-testid=cmp-phase-phase-group]')].map(g => ({
      Name: g.dataset.phase, Status: g.dataset.status, Admitted: +g.dataset.admitted, Members: +g.dataset.members,
      Clusters: [...g.querySelectorAll('[data-testid=cmp-phase-row]')].map(r => ({Name: r.dataset.cluster, Status: r.dataset.status})),
    })),
    Hooks: [...document.querySelectorAll(view + '[data-testid=cmp-phase-hook]')].map(h => ({Key: h.dataset.key, Status: h.dataset.status})),
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
