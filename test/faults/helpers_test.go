//go:build e2e

package faults

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// spec is the e2e phased spec at version with a pre-hook on staging.
func spec(version, hookURL string) string {
	s := framework.PhasedSpec(name, version, env.Git.URL)
	return strings.Replace(s, "      - name: staging\n", "      - name: staging\n        preHooks:\n        - name: notify\n          type: http\n          http:\n            url: "+hookURL+"\n", 1)
}

// hookServer answers hooks with 200 and remembers when each Idempotency-Key was called.
type hookServer struct {
	url   string
	mu    sync.Mutex
	calls map[string][]time.Time
}

func newHookServer(t *testing.T) *hookServer {
	h := &hookServer{calls: map[string][]time.Time{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.calls[r.Header.Get("Idempotency-Key")] = append(h.calls[r.Header.Get("Idempotency-Key")], time.Now())
		h.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	h.url = srv.URL
	return h
}

// rerunsAfter counts calls made after the ledger recorded that key's success.
func (h *hookServer) rerunsAfter(done map[string]time.Time) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for key, at := range done {
		for _, c := range h.calls[key] {
			if c.After(at) {
				n++
			}
		}
	}
	return n
}

// supervisor restarts the agent when it exits, as a Deployment would (it exits when it
// loses its Lease, e.g. while the API server restarts).
type supervisor struct {
	mu    sync.Mutex
	n     int
	proc  *framework.Proc
	done  chan struct{}
	spec  framework.ProcSpec
	ended sync.WaitGroup
}

func superviseAgent(t *testing.T, kubeconfig string) *supervisor {
	port, err := framework.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	s := &supervisor{done: make(chan struct{}), spec: framework.ProcSpec{Name: "agent-faults", Path: agentBin, Args: []string{
		"--kubeconfig", kubeconfig, "--namespace", framework.ArgoNamespace, "--log-level", "debug", "--hook-allow-private",
		"--metrics-addr", "127.0.0.1:" + strconv.Itoa(port), "--confirm-after", "10s"}}}
	if s.proc, err = env.Start(s.spec); err != nil {
		t.Fatal(err)
	}
	s.ended.Go(func() {
		for {
			select {
			case <-s.done:
				return
			case <-s.current().Wait():
			}
			time.Sleep(time.Second)
			if p, err := env.Start(s.spec); err == nil {
				s.mu.Lock()
				s.proc, s.n = p, s.n+1
				s.mu.Unlock()
			}
		}
	})
	return s
}

func (s *supervisor) current() *framework.Proc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc
}

func (s *supervisor) restarts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func (s *supervisor) stop() {
	close(s.done)
	s.current().Stop(5 * time.Second)
	s.ended.Wait()
}

// waitRunning waits until the last rollout completed and every cluster runs version.
func waitRunning(t *testing.T, version string) {
	t.Helper()
	env.WaitFor(t, 8*time.Minute, "every cluster runs "+version, func(ctx context.Context) (bool, string) {
		st, err := env.State(ctx, name)
		if err != nil || st.Rollout == nil {
			return false, fmt.Sprint("no rollout yet: ", err)
		}
		for _, c := range env.Clusters {
			cm, err := env.ClusterKube(c.Name).CoreV1().ConfigMaps(c.Name).Get(ctx, name, metav1.GetOptions{})
			if err != nil || cm.Data["version"] != version {
				return false, fmt.Sprintf("%s phase %d; %s not on %s", st.Rollout.Status, st.Rollout.Phase, c.Name, version)
			}
		}
		return st.Rollout.Status == state.RolloutCompleted, string(st.Rollout.Status)
	})
}

// atPhase waits until a rollout of a new revision has admitted someone in phase i.
func atPhase(t *testing.T, i int) {
	t.Helper()
	env.WaitFor(t, 5*time.Minute, fmt.Sprintf("phase %d admits", i), func(ctx context.Context) (bool, string) {
		st, err := env.State(ctx, name)
		if err != nil || st.Rollout == nil {
			return false, fmt.Sprint(err)
		}
		r := st.Rollout
		return r.Active() && r.Revision != st.Deployed && r.Phase >= i && len(r.Phases[i].Admitted) > 0, fmt.Sprintf("%s phase %d", r.Status, r.Phase)
	})
}

// allowed is every revision the state lets each child run.
func allowed(st *state.State) map[string][]string {
	out := map[string][]string{}
	for _, c := range st.Children {
		out[c] = append(out[c], st.Deployed)
		if p := st.Pinned[c]; p != "" {
			out[c] = append(out[c], p)
		}
	}
	if r := st.Rollout; r != nil && r.Active() {
		for _, ph := range r.Phases {
			for _, c := range slices.Concat(ph.Admitted, ph.Returning) {
				out[c] = append(out[c], r.Revision)
			}
		}
	}
	return out
}
