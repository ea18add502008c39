package rollout

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The messages are Argo CD's operation messages (status.operationState.message) as its
// controller and gitops-engine write them: "one or more objects failed to apply, reason:
// <each object's message>", joined with ",", the objects' messages being client-go's and
// the API server's words.
func TestClassifySyncFailure(t *testing.T) {
	cases := []struct {
		msg  string
		want FailureKind
	}{
		// the fault suite's: the API server restarted while the sync applied
		// seen when a managed cluster went away mid-sync (the fault suite, without the rule)
		{`one or more synchronization tasks are not valid: failed to discover server resources for group version v1: Get "https://127.0.0.2:26686/api/v1?timeout=32s": EOF - error from a previous attempt: read tcp 127.0.0.1:58552->127.0.0.2:26686: read: connection reset by peer`, Transient},
		{`one or more objects failed to apply, reason: error when patching "/dev/shm/123": Patch "https://127.0.0.2:6443/api/v1/namespaces/dev-1/configmaps/faults?fieldManager=argocd-controller": EOF`, Transient},
		{`one or more objects failed to apply, reason: Patch "https://127.0.0.2:6443/api/v1/namespaces/dev-1/configmaps/faults?fieldManager=argocd-controller": dial tcp 127.0.0.2:6443: connect: connection refused`, Transient},
		{`one or more objects failed to apply, reason: Get "https://10.0.0.1/api?timeout=32s": read tcp 10.0.0.2:51234->10.0.0.1:443: read: connection reset by peer`, Transient},
		{`one or more objects failed to apply, reason: Get "https://10.0.0.1/api": net/http: TLS handshake timeout`, Transient},
		{`one or more objects failed to apply, reason: Get "https://10.0.0.1/api": dial tcp 10.0.0.1:443: i/o timeout`, Transient},
		{`one or more objects failed to apply, reason: error when patching "/dev/shm/1": unexpected EOF`, Transient},
		{`one or more objects failed to apply, reason: the server is currently unable to handle the request (patch configmaps faults)`, Transient},
		{`one or more objects failed to apply, reason: the server was unable to return a response in the time allotted, but may still be processing the request`, Transient},
		{`one or more objects failed to apply, reason: the server has received too many requests and has asked us to try again later`, Transient},
		{`one or more objects failed to apply, reason: an error on the server ("unknown") has prevented the request from succeeding (patch configmaps faults)`, Transient},
		{`one or more objects failed to apply, reason: Internal error occurred: etcdserver: leader changed`, Transient},
		{`one or more objects failed to apply, reason: etcdserver: request timed out`, Transient},
		{`one or more objects failed to apply, reason: Operation cannot be fulfilled on configmaps "faults": the object has been modified; please apply your changes to the latest version and try again`, Transient},
		{`one or more objects failed to apply, reason: Internal error occurred: failed calling webhook "validate.example.com": failed to call webhook: Post "https://webhook.svc:443/validate?timeout=10s": dial tcp 10.96.0.5:443: connect: connection refused`, Transient},
		{`failed to sync cluster https://10.0.0.1: failed to load initial state of resource ConfigMap: Get "https://10.0.0.1/api/v1/configmaps": dial tcp 10.0.0.1:443: connect: connection refused`, Transient},
		{`Failed to get destination cluster: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:8081: connect: connection refused"`, Transient},
		{`one or more objects failed to apply, reason: Unauthorized`, Transient},
		{`one or more objects failed to apply, reason: http2: client connection lost`, Transient},
		{`one or more objects failed to apply, reason: context deadline exceeded`, Transient},
		{`one or more objects failed to apply, reason: error validating "/dev/shm/1": error validating data: failed to download openapi: Get "https://10.0.0.1/openapi/v2?timeout=32s": dial tcp 10.0.0.1:443: connect: connection refused; if you choose to ignore these errors, turn validation off with --validate=false`, Transient},
		{`one or more objects failed to apply, reason: configmaps "x" is forbidden: unable to create new content in namespace dev-1 because it is being terminated`, Transient},
		// reasons that will not change by themselves
		{`one or more objects failed to apply, reason: error validating "/dev/shm/1": error validating data: ValidationError(Deployment.spec): unknown field "x" in io.k8s.api.apps.v1.DeploymentSpec`, Permanent},
		{`one or more objects failed to apply, reason: Internal error occurred: failed calling webhook "v.example.com": failed to call webhook: Post "https://w.svc:443/v": service "w" not found`, Permanent},
		{`Manifest generation error (cached): rpc error: code = Unknown desc = dial tcp: lookup git.example.com: no such host`, Permanent},
		{`one or more objects failed to apply, reason: error unmarshaling JSON: while decoding JSON: unexpected EOF`, Permanent},
		{`one or more objects failed to apply, reason: admission webhook "validate.kyverno.svc-fail" denied the request: resource ConfigMap/dev-1/faults was blocked`, Permanent},
		{`one or more objects failed to apply, reason: configmaps "faults" is forbidden: User "system:serviceaccount:argocd:argocd-application-controller" cannot patch resource "configmaps" in API group "" in the namespace "dev-1"`, Permanent},
		{`one or more objects failed to apply, reason: Deployment.apps "web" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web2"}}: field is immutable`, Permanent},
		{`one or more objects failed to apply, reason: ConfigMap "faults" is invalid: data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '.'`, Permanent},
		{`one or more synchronization tasks are not valid: The Kubernetes API could not find example.com/Widget for requested resource dev-1/w. Make sure the "Widget" CRD is installed on the destination cluster.`, Permanent},
		{`one or more objects failed to apply, reason: resource mapping not found for name: "w" namespace: "dev-1" from "/dev/shm/1": no matches for kind "Widget" in version "example.com/v1"`, Permanent},
		{`one or more objects failed to apply, reason: pods "p" is forbidden: exceeded quota: compute, requested: cpu=2, used: cpu=1, limited: cpu=2`, Permanent},
		{`Operation terminated`, Permanent},
		{`one or more synchronization tasks completed unsuccessfully, reason: Job has reached the specified backoff limit`, Permanent},
		{`one or more objects failed to apply, reason: error when patching "/dev/shm/1": unknown field "spec.replicaz"`, Permanent},
		// a mix: one object's reset connection, another's invalid manifest: trying again cannot help
		{`one or more objects failed to apply, reason: ConfigMap "a" is invalid: data: Invalid value,Patch "https://10.0.0.1/api/v1/namespaces/x/configmaps/b": EOF`, Permanent},
		// unknown words: the safe side is a verdict
		{`one or more objects failed to apply, reason: something nobody has seen before`, Permanent},
		{``, Permanent},
	}
	for _, c := range cases {
		got, rule := ClassifySyncFailure(c.msg)
		if got != c.want {
			t.Errorf("%s (rule %q), want %s: %s", got, rule, c.want, c.msg)
		}
		if got == Transient && rule == "" {
			t.Errorf("a transient verdict names its rule: %s", c.msg)
		}
	}
}

func TestRetryBackoff(t *testing.T) {
	m := Marker("r2", t0)
	prev := time.Duration(0)
	for n := 1; n <= 10; n++ {
		d := RetryBackoff(m, n)
		base := min(RetryBase<<(n-1), RetryMax)
		if d < base*8/10 || d > base*12/10 {
			t.Fatalf("attempt %d waits %s, want %s ± 20%%", n, d, base)
		}
		if n <= 4 && d <= prev {
			t.Fatalf("attempt %d waits %s, not longer than %s", n, d, prev)
		}
		prev = d
		if RetryBackoff(m, n) != d {
			t.Fatal("the backoff is pure: every agent computes the same wait")
		}
	}
	if RetryBackoff(Marker("r2", t0), 3) == RetryBackoff(Marker("r2", t0.Add(time.Second)), 3) &&
		RetryBackoff(Marker("r3", t0), 3) == RetryBackoff(Marker("r2", t0), 3) {
		t.Fatal("jitter spreads the attempts of different admissions")
	}
}

// failedSync is a child admitted to r2 at t0 whose sync of that admission failed at
// t0+20s with msg.
func failedSync(msg string) Observation {
	return Observation{Revision: "r2", SpecCompared: true, SyncStatus: "OutOfSync", OperationPhase: "Failed",
		OperationFinishedAt: at(20), OperationMessage: msg, ReconciledAt: at(21), Health: "Healthy", OperationMarker: Marker("r2", t0)}
}

const (
	eofMsg     = `one or more objects failed to apply, reason: Patch "https://127.0.0.2:6443/api/v1/namespaces/dev-1/configmaps/x": EOF`
	invalidMsg = `one or more objects failed to apply, reason: ConfigMap "x" is invalid: data[bad key]: Invalid value`
	// the fault suite's cluster whose own API server had just started again
	forbiddenMsg = `one or more synchronization tasks are not valid: failed to discover server resources for group version v1: forbidden: User "argocd-prod-1" cannot get path "/api/v1"`
)

func TestSettleTransientFailure(t *testing.T) {
	cases := []struct {
		name   string
		change func(*Observation)
		want   Verdict
		retry  bool
	}{
		{"a sync cut by a restarting API server waits for the agent's retry", func(*Observation) {}, Waiting, true},
		{"as does a sync Argo CD could not run for a transient reason", func(o *Observation) { o.OperationPhase = "Error" }, Waiting, true},
		{"a permanent apply error fails the child at once", func(o *Observation) { o.OperationMessage = invalidMsg }, Failed, false},
		{"a permanent Error errors it at once", func(o *Observation) { o.OperationPhase, o.OperationMessage = "Error", invalidMsg }, Errored, false},
		{"a child whose own syncPolicy.retry Argo CD exhausted: its last word is final", func(o *Observation) { o.ArgoCDRetries = true }, Failed, false},
		{"a transient failure from before admission is nobody's to retry", func(o *Observation) { o.OperationMarker, o.OperationFinishedAt = "", at(-5) }, Waiting, false},
		{"a retry pending is waited for", func(o *Observation) { o.OperationPending = true }, Waiting, false},
		{"a first forbidden answer (an API server that just started, its RBAC not read yet) is retried once", func(o *Observation) {
			o.OperationMessage = forbiddenMsg
		}, Waiting, true},
		{"a second forbidden answer is a verdict", func(o *Observation) { o.OperationMessage, o.OperationAttempt = forbiddenMsg, 2 }, Failed, false},
		{"an exceeded quota is a verdict at once", func(o *Observation) {
			o.OperationMessage = `one or more objects failed to apply, reason: pods "p" is forbidden: exceeded quota: compute`
		}, Failed, false},
		{"the retry of a transient failure that succeeded settles as usual", func(o *Observation) {
			o.OperationPhase, o.SyncStatus, o.ReconciledAt, o.OperationAttempt = "Succeeded", "Synced", at(25), 2
		}, Done, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := failedSync(eofMsg)
			c.change(&o)
			got, why := Settle(o, "r2", t0)
			if got != c.want {
				t.Fatalf("got %s (%s), want %s", got, why, c.want)
			}
			_, _, retry := Retry(o, "r2", t0)
			if retry != c.retry {
				t.Fatalf("retry %v, want %v (%s)", retry, c.retry, why)
			}
		})
	}
}

func TestSettleTransientReasonNamesTheAttempt(t *testing.T) {
	o := failedSync(eofMsg)
	o.OperationAttempt = 3
	_, why := Settle(o, "r2", t0)
	for _, part := range []string{"transient error (EOF)", "attempt 3", "progressDeadline", "EOF"} {
		if !strings.Contains(why, part) {
			t.Fatalf("reason %q lacks %q", why, part)
		}
	}
	at3, n, ok := Retry(o, "r2", t0)
	if !ok || n != 4 || !at3.Equal(at(20).Add(RetryBackoff(Marker("r2", t0), 3))) {
		t.Fatalf("Retry = %s, %d, %v", at3, n, ok)
	}
}

// failsTransiently makes child key's sync of its admission (admitted at t0) fail with msg
// at t0+s, as attempt n.
func (w *world) failsTransiently(key string, s, n int, msg string) {
	w.obs.Children[key] = Observation{Revision: "r2", SpecCompared: true, SyncStatus: "OutOfSync", OperationPhase: "Failed",
		OperationFinishedAt: at(s), OperationMessage: msg, ReconciledAt: at(s + 1), Health: "Healthy",
		OperationMarker: Marker("r2", t0), OperationAttempt: n}
}

// devAdmitted is threePhases, dev with a 5-minute progressDeadline, admitted at t0 and
// dev-1 done at t0+5s.
func devAdmitted(t *testing.T) *world {
	t.Helper()
	phases := threePhases()
	phases[0].ProgressDeadline = 5 * time.Minute
	w := newWorld(phases...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1")
	return w
}

func syncAgain(acts []Action, child string) bool {
	return slices.ContainsFunc(acts, func(a Action) bool {
		return a.Kind == ActSyncAgain && a.Cluster == child && a.Revision == "r2" && a.Since.Equal(t0)
	})
}

// TestATransientSyncFailureIsRetriedAndTheRolloutGoesOn: dev-2's sync is cut by an API
// server restart; the phase waits, the engine asks for its sync again after the backoff
// (a requeue before), and when the retry succeeds the rollout goes on.
func TestATransientSyncFailureIsRetriedAndTheRolloutGoesOn(t *testing.T) {
	w := devAdmitted(t)
	w.failsTransiently("dev-2", 6, 0, eofMsg)
	due := at(6).Add(RetryBackoff(Marker("r2", t0), 1))
	acts := w.step(t, 7)
	cs := w.st.Rollout.Phases[0].Clusters["dev-2"]
	if w.st.Rollout.Status != StatusProgressing || cs.Status != ClusterWaiting || !strings.Contains(cs.Reason, "attempt 1") {
		t.Fatalf("a transient failure is not a verdict: %s %+v", w.st.Rollout.Status, cs)
	}
	if syncAgain(acts, "dev-2") || !slices.ContainsFunc(acts, func(a Action) bool { return a.Kind == ActRequeue && a.At.Equal(due) }) {
		t.Fatalf("before the backoff: a requeue at %s, no sync: %v", due, acts)
	}
	if acts := w.step(t, int(due.Sub(t0)/time.Second)+1); !syncAgain(acts, "dev-2") {
		t.Fatalf("after the backoff: sync dev-2 again: %v", acts)
	}
	w.failsTransiently("dev-2", 40, 2, "one or more objects failed to apply, reason: dial tcp 127.0.0.2:6443: connect: connection refused")
	w.step(t, 41)
	if cs := w.st.Rollout.Phases[0].Clusters["dev-2"]; cs.Status != ClusterWaiting || !strings.Contains(cs.Reason, "attempt 2") {
		t.Fatalf("the reason counts the attempts: %+v", cs)
	}
	w.syncs(80, "r2", "dev-2")
	w.step(t, 81)
	if r := w.st.Rollout; r.Phase != 1 || r.Phases[0].Clusters["dev-2"].Status != ClusterDone {
		t.Fatalf("the retried sync succeeded: the rollout goes on: %+v", r.Phases[0])
	}
}

// TestATransientFailurePastTheProgressDeadlineAppliesOnFailure: retries end at the
// phase's progressDeadline, and only then onFailure applies.
func TestATransientFailurePastTheProgressDeadlineAppliesOnFailure(t *testing.T) {
	w := devAdmitted(t)
	w.failsTransiently("dev-2", 290, 6, eofMsg)
	w.step(t, 299)
	if w.st.Rollout.Status != StatusProgressing {
		t.Fatal("stopped before the deadline")
	}
	acts := w.step(t, 300)
	r := w.st.Rollout
	if r.Status != StatusStopped || r.Phases[0].Clusters["dev-2"].Status != ClusterErrored || syncAgain(acts, "dev-2") {
		t.Fatalf("at the deadline the phase's onFailure applies, and nothing is retried: %s %+v %v", r.Status, r.Phases[0].Clusters["dev-2"], acts)
	}
	if !strings.Contains(r.Phases[0].Clusters["dev-2"].Reason, "transient") {
		t.Fatalf("the reason says what it waited for: %q", r.Phases[0].Clusters["dev-2"].Reason)
	}
}

// TestAPermanentSyncFailureStopsTheRolloutAtOnce: an invalid manifest is a verdict.
func TestAPermanentSyncFailureStopsTheRolloutAtOnce(t *testing.T) {
	w := devAdmitted(t)
	w.failsTransiently("dev-2", 6, 0, invalidMsg)
	acts := w.step(t, 7)
	if r := w.st.Rollout; r.Status != StatusStopped || r.Phases[0].Clusters["dev-2"].Status != ClusterFailed || syncAgain(acts, "dev-2") {
		t.Fatalf("a permanent apply error stops the rollout at once: %s %+v", r.Status, r.Phases[0].Clusters["dev-2"])
	}
}

// TestAReturningChildsTransientFailureIsRetried: a rollback's sync is retried the same way.
func TestAReturningChildsTransientFailureIsRetried(t *testing.T) {
	w := toRollback(t)
	since := *w.st.Rollout.Phases[2].RollbackAt
	w.obs.Children["prod-1"] = Observation{Revision: "r1", SpecCompared: true, SyncStatus: "OutOfSync", OperationPhase: "Failed",
		OperationFinishedAt: at(35), OperationMessage: eofMsg, ReconciledAt: at(36), Health: "Healthy", OperationMarker: Marker("r1", since)}
	acts := w.step(t, 120)
	if !slices.ContainsFunc(acts, func(a Action) bool { return a.Kind == ActSyncAgain && a.Cluster == "prod-1" && a.Revision == "r1" }) {
		t.Fatalf("a returning child's transient failure is synced again: %v", acts)
	}
	if w.st.Rollout.Status != StatusRollingBack {
		t.Fatalf("and the rollback waits for it: %s", w.st.Rollout.Status)
	}
}

// TestNoRetryInAPassThatStopsTheRollout: dev-2's backoff is over when dev-1 fails for good
// in the same pass: the rollout stops where it is, and nothing is synced again.
func TestNoRetryInAPassThatStopsTheRollout(t *testing.T) {
	for _, policy := range []string{"stop", "rollback"} {
		phases := threePhases()
		phases[0].ProgressDeadline = 5 * time.Minute
		phases[0].OnFailure = policy
		w := newWorld(phases...)
		w.step(t, 0)
		w.failsTransiently("dev-2", 6, 0, eofMsg)
		w.failsTransiently("dev-1", 6, 0, invalidMsg)
		acts := w.step(t, 100)
		if st := w.st.Rollout.Status; st == StatusProgressing || syncAgain(acts, "dev-2") {
			t.Fatalf("%s: a rollout that stopped or turned back syncs nobody again: %s %v", policy, st, acts)
		}
	}
}

// TestRetryGoesOnUntilTheDeadlineNotAnAttemptCount: a sync failing transiently is synced
// again however many attempts it took — attempt 50 as attempt 1 — for as long as the
// phase's deadline allows, each wait at most RetryMax (+20%); only the deadline ends it.
// A cap on attempts (the agent once gave up after 5) fails here.
func TestRetryGoesOnUntilTheDeadlineNotAnAttemptCount(t *testing.T) {
	phases := threePhases()
	phases[0].ProgressDeadline = time.Hour
	w := newWorld(phases...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1")
	s, engine := 6, 0
	for n := 1; n <= 50; n++ {
		w.failsTransiently("dev-2", s, n, eofMsg)
		due, next, ok := Retry(w.obs.Children["dev-2"], "r2", t0)
		if !ok || next != n+1 || due.Sub(at(s)) > RetryMax*6/5 {
			t.Fatalf("attempt %d: Retry = %s, %d, %v: a retry given up, or waiting past RetryMax", n, due, next, ok)
		}
		if due.Before(at(3600)) { // the engine asks for the sync while the deadline allows
			if acts := w.step(t, int(due.Sub(t0)/time.Second)+1); !syncAgain(acts, "dev-2") || w.st.Rollout.Status != StatusProgressing {
				t.Fatalf("attempt %d at %ds: no sync asked before the deadline: %v", n, s, acts)
			}
			s, engine = int(due.Sub(t0)/time.Second)+2, n
		}
	}
	if engine < 20 {
		t.Fatalf("only %d attempts went through the engine", engine)
	}
	w.step(t, 3600)
	if r := w.st.Rollout; r.Status != StatusStopped || r.Phases[0].Clusters["dev-2"].Status != ClusterErrored {
		t.Fatalf("the deadline ends the retries: %s %+v", r.Status, r.Phases[0].Clusters)
	}
}
