//go:build e2e

package faults

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

type figures struct {
	lost, wrong int
	examples    []string
	hookDone    map[string]time.Time // Idempotency-Key → when the ledger first showed success
}

// monitor checks the invariants every half second until stopped: no deployed child ever
// missing, no child on a revision the state (just before or after, or at the last look)
// does not give it, and when each hook's success was recorded.
type monitor struct {
	mu   sync.Mutex
	f    figures
	stop func()
}

func watchInvariants(ctx context.Context, t *testing.T, h *hookServer) *monitor {
	m := &monitor{f: figures{hookDone: map[string]time.Time{}}}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	m.stop = func() { cancel(); wg.Wait() }
	lostSeen := map[string]bool{}
	var prev map[string][]string
	wg.Go(func() {
		for ctx.Err() == nil {
			time.Sleep(500 * time.Millisecond)
			before, err := env.State(ctx, name)
			if err != nil {
				continue
			}
			apps, err := env.Argo.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).List(ctx, metav1.ListOptions{LabelSelector: contract.LabelRollout + "=" + name})
			if err != nil {
				continue
			}
			after, err := env.State(ctx, name)
			if err != nil {
				continue
			}
			ok := allowed(before)
			for c, revs := range allowed(after) {
				ok[c] = append(ok[c], revs...)
			}
			for c, revs := range prev {
				ok[c] = append(ok[c], revs...)
			}
			prev = allowed(after)
			live := map[string]bool{}
			m.mu.Lock()
			for _, a := range apps.Items {
				live[a.Name] = true
				if rev := a.Annotations[contract.AnnotationRevision]; len(ok[a.Name]) > 0 && !slices.Contains(ok[a.Name], rev) {
					m.f.wrong++
					m.f.examples = append(m.f.examples, fmt.Sprintf("%s on %s, allowed %v", a.Name, rev, ok[a.Name]))
				}
			}
			for _, c := range before.Children {
				if !live[c] && !lostSeen[c] && !slices.Contains(before.Removing, c) {
					lostSeen[c] = true
					m.f.lost++
				}
			}
			m.recordHooks(after)
			m.mu.Unlock()
		}
	})
	return m
}

// recordHooks notes when the ledger first shows each pre-hook succeeded (caller holds mu).
func (m *monitor) recordHooks(st *state.State) {
	if st.Rollout == nil {
		return
	}
	for _, ph := range st.Rollout.Phases {
		for _, k := range slices.Sorted(maps.Keys(ph.Hooks)) {
			run := ph.Hooks[k]
			key := name + "/" + st.Rollout.Revision + "/" + ph.Name + "/" + run.Name
			if _, seen := m.f.hookDone[key]; !seen && run.Status == state.HookSucceeded {
				m.f.hookDone[key] = time.Now()
			}
		}
	}
}

func (m *monitor) figures() figures {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.f
}
