//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestTheDashboardAndTheStoppedAlertOnARealRun: a Prometheus of the test's own scrapes two
// real agents and the real sidecar while two hooked rollouts run — one completes, one stops
// at prod's failing check — and evaluates manifests/observability/rules.yaml. Every query
// of the Grafana dashboard (dashboard.json) returns a series; CmpPhaseRolloutStopped fires
// for the stopped rollout and never for the completed one; the agent answers /readyz, and
// its log parses as JSON line by line (client-go's klog lines included).
func TestTheDashboardAndTheStoppedAlertOnARealRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	good, bad := hookedRollout(ctx, t, "observed-ok", ""), hookedRollout(ctx, t, "observed-bad", "prod-2")
	dir := filepath.Join(framework.RepoRoot(), "manifests", "observability")
	prom := env.ScrapingPrometheus(t, "prometheus-observed", map[string][]string{
		"cmp-phase-agent": {good.r.metrics, bad.r.metrics}, "cmp-phase-sidecar": {env.SidecarMetrics},
	}, filepath.Join(dir, "rules.yaml"))

	good.r.until("the hooked rollout completes", good.rev, rollout.StatusCompleted, everywhere("v1"))
	bad.r.until("the rollout stops at prod's failing check", bad.rev, rollout.StatusStopped, everywhere("v1"))
	if resp, err := http.Get("http://" + good.r.metrics + "/readyz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/readyz of a running agent: %v %v", resp, err)
	}

	firing := `ALERTS{alertname="CmpPhaseRolloutStopped",alertstate="firing"}`
	env.WaitFor(t, 3*time.Minute, "CmpPhaseRolloutStopped fires for "+bad.r.name, func(ctx context.Context) (bool, string) {
		got, err := prom.Series(ctx, firing)
		return err == nil && len(got) == 1 && got[0]["rollout"] == bad.r.name, describe(got, err)
	})
	for _, q := range dashboardQueries(t, filepath.Join(dir, "dashboard.json")) {
		env.WaitFor(t, time.Minute, "a series for "+q, func(ctx context.Context) (bool, string) {
			got, err := prom.Series(ctx, q)
			return err == nil && len(got) > 0, describe(got, err)
		})
	}
	if got, err := prom.Series(ctx, `ALERTS{rollout="`+good.r.name+`"}`); err != nil || len(got) > 0 {
		t.Fatalf("an alert for the completed rollout: %v %v", got, err)
	}
	jsonLines(t, good.agent.LogPath)
}

type hooked struct {
	r     *phased
	rev   string
	agent *framework.Proc
}

// hookedRollout starts the first deployment of hookedSpec, its check failing for failFor
// (none: it completes), driven by an agent of its own.
func hookedRollout(ctx context.Context, t *testing.T, name, failFor string) hooked {
	srv := httptest.NewServer(&recorder{failFor: failFor})
	t.Cleanup(srv.Close)
	r := newPhased(t, name, "stop")
	putHookSecret(ctx, t, r.name)
	spec := hookedSpec(r.name, srv.URL, "fail")
	if _, err := env.Git.Commit(r.name+": v1", map[string]string{r.name + "/app/appset.yaml": spec,
		r.name + "/v1/cm.yaml": framework.Workload(r.name, "v1")}); err != nil {
		t.Fatal(err)
	}
	rev, _ := revisionOf(t, spec)
	a := r.agent("agent-"+r.name, nil, "--hook-allow-private")
	t.Cleanup(func() { a.Stop(5 * time.Second) })
	newParent(ctx, t, r.name, r.name+"/app", 0)
	return hooked{r: r, rev: rev, agent: a}
}

// dashboardQueries are the expressions of every panel of a Grafana dashboard, its
// template variables ($namespace, $rollout) as Grafana fills them when All is chosen.
func dashboardQueries(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Fatalf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			out = append(out, strings.NewReplacer(`"$namespace"`, `".*"`, `"$rollout"`, `".*"`).Replace(tg.Expr))
		}
	}
	if len(out) < 10 {
		t.Fatalf("%d queries in %s", len(out), path)
	}
	return out
}

// jsonLines fails unless every line of the log at path is a JSON object.
func jsonLines(t *testing.T, path string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s line %d is not JSON: %.200s", path, n+1, sc.Text())
		}
		n++
	}
	if n == 0 {
		t.Fatalf("%s is empty", path)
	}
}

func describe(got []map[string]string, err error) string {
	if err != nil {
		return err.Error()
	}
	b, _ := json.Marshal(got)
	return string(b)
}
