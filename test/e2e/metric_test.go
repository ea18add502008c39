//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// metricGauge is the exporter's gauge the metric checks of these tests query.
const metricGauge = "http_success_ratio"

// metricCheck is a check block (its YAML lines at phase depth) of a metric check on the
// real Prometheus at address, over query (ROLLOUT filled by twoPhaseSpec), with the extra
// lines of the check (during) and of its metric block (count, limits) put in.
func metricCheck(address, query, check, metric string) string {
	return fmt.Sprintf(`        checks:
        - name: success-rate
          type: metric
          timeout: 10s
%s          metric:
            prometheus:
              address: %s
              query: '%s'
            interval: 2s
            successCondition: result[0] >= 0.99
            failureCondition: result[0] < 0.95
%s`, check, address, query, metric)
}

// commitMetricSpec commits the rollout's spec and v1 workload and returns its revision.
func commitMetricSpec(t *testing.T, r *phased, spec string) string {
	t.Helper()
	if _, err := env.Git.Commit(r.name+": v1", map[string]string{r.name + "/app/appset.yaml": spec,
		r.name + "/v1/cm.yaml": framework.Workload(r.name, "v1")}); err != nil {
		t.Fatal(err)
	}
	rev, _ := revisionOf(t, spec)
	return rev
}

// TestAMetricCheckThatTurnsBadMidSoakStopsTheRollout (issue 13): early's per-cluster check
// is measured through its soak against a real Prometheus; once every early cluster reads
// 0.999 the soak starts, then dev-2's ratio drops to 0.5 and the rollout stops before the
// soak ends (onFailure stop), naming the cluster and the check; prod is never admitted.
func TestAMetricCheckThatTurnsBadMidSoakStopsTheRollout(t *testing.T) {
	prom := env.Prometheus(t)
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "metricsoak", "stop")
	early := []string{"dev-1", "dev-2", "staging-1", "staging-2"}
	labels := func(c string) map[string]string { return map[string]string{"rollout": r.name, "cluster": c} }
	for _, c := range early {
		prom.Exporter.Set(metricGauge, labels(c), 0.999)
	}
	prom.WaitFor(t, fmt.Sprintf(`%s{rollout=%q,cluster="dev-2"}`, metricGauge, r.name), []float64{0.999})
	query := fmt.Sprintf(`%s{rollout="ROLLOUT",cluster="{{name}}"}`, metricGauge)
	block := "        waitDuration: 45s\n" + metricCheck(prom.Address, query, "          during: soak\n", "")
	rev := commitMetricSpec(t, r, twoPhaseSpec(r.name, block, ""))
	defer r.agent("agent-"+r.name, nil, "--hook-allow-private").Stop(5 * time.Second)
	newParent(ctx, t, r.name, r.name+"/app", 0)
	st := r.waitState("early soaks, its checks measuring", func(st *state.State) bool {
		run := st.Rollout.Phases[0].Hooks["check/success-rate/"+r.name+"-dev-2"]
		return st.Rollout.Phases[0].Status == state.PhaseSoaking && run.Status == state.HookRunning
	})
	soakEnd := *st.Rollout.Phases[0].SoakUntil
	time.Sleep(5 * time.Second) // a few good measurements
	prom.Exporter.Set(metricGauge, labels("dev-2"), 0.5)
	st = r.waitState("the rollout stops mid-soak", func(st *state.State) bool {
		return st.Rollout.Revision == rev && st.Rollout.Status == rollout.StatusStopped
	})
	if !time.Now().Before(soakEnd) {
		t.Fatalf("stopped only after the soak's end (%s)", soakEnd)
	}
	if !strings.Contains(st.Rollout.Reason, "success-rate on "+r.name+"-dev-2 Failed") || !strings.Contains(st.Rollout.Reason, "0.5") {
		t.Fatalf("the reason names the cluster, the check and the value: %q", st.Rollout.Reason)
	}
	if run := st.Rollout.Phases[0].Hooks["check/success-rate/"+r.name+"-dev-1"]; run.Status != state.HookRunning && run.Status != state.HookSucceeded {
		t.Fatalf("dev-1's check: %+v", run)
	}
	r.eventually(rollout.EvRolloutStopped)
	time.Sleep(time.Until(soakEnd.Add(5 * time.Second)))
	if st, _ = r.state(ctx); st.Rollout.Status != rollout.StatusStopped || len(st.Rollout.Phases[1].Admitted) != 0 {
		t.Fatalf("prod is never admitted: %s %v", st.Rollout.Status, st.Rollout.Phases[1].Admitted)
	}
}

// TestAnInconclusiveMetricPausesTheRolloutUntilResumed (issue 13): early's check queries a
// series Prometheus does not have (no data: Inconclusive), so the rollout pauses, `status`
// shows why and a MetricInconclusive Event is published; once the exporter serves it, a
// resume runs the check again and the rollout completes.
func TestAnInconclusiveMetricPausesTheRolloutUntilResumed(t *testing.T) {
	prom := env.Prometheus(t)
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "metricinconclusive", "stop")
	query := fmt.Sprintf(`min(%s{rollout="ROLLOUT"})`, metricGauge)
	rev := commitMetricSpec(t, r, twoPhaseSpec(r.name, metricCheck(prom.Address, query, "", "            count: 2\n"), ""))
	defer r.agent("agent-"+r.name, nil, "--hook-allow-private").Stop(5 * time.Second)
	newParent(ctx, t, r.name, r.name+"/app", 0)
	st := r.waitState("the inconclusive check pauses the rollout", func(st *state.State) bool {
		return st.Paused != nil && st.Paused.Check == "check/success-rate"
	})
	if !strings.Contains(st.Paused.Reason, "success-rate Inconclusive") || !strings.Contains(st.Paused.Reason, "no data") || st.Rollout.Phase != 0 {
		t.Fatalf("paused at early, naming the check and why: %+v", st.Paused)
	}
	if out := r.cli("status", r.name); !strings.Contains(out, "PAUSED") || !strings.Contains(out, "check success-rate") {
		t.Fatalf("status does not show the pause:\n%s", out)
	}
	r.eventually(rollout.EvCheckInconclusive)
	time.Sleep(5 * time.Second)
	if st, _ = r.state(ctx); st.Paused == nil || len(st.Rollout.Phases[1].Admitted) != 0 {
		t.Fatalf("the pause holds: %+v, prod %v", st.Paused, st.Rollout.Phases[1].Admitted)
	}
	prom.Exporter.Set(metricGauge, map[string]string{"rollout": r.name}, 0.999)
	prom.WaitFor(t, fmt.Sprintf(`min(%s{rollout=%q})`, metricGauge, r.name), []float64{0.999})
	r.cli("resume", r.name, "--reason", "the metric is back")
	r.until("the rollout completes after resume", rev, rollout.StatusCompleted, everywhere("v1"))
	st, _ = r.state(ctx)
	if run := st.Rollout.Phases[0].Hooks["check/success-rate"]; run.Status != state.HookSucceeded || !strings.Contains(run.Message, "2/2 measured: 0.999, 0.999") {
		t.Fatalf("the check ran again from scratch and passed: %+v", run)
	}
}
