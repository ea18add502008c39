package statestore

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Memo remembers the state a Store last decoded or wrote, by its ConfigMap's UID and
// resourceVersion: a read-modify-write that finds the ConfigMap unchanged since (the
// common case: the agent's own last write) skips decoding it again — at 10,000 clusters
// decoding was most of a reconcile's time. It hands out copies, so no caller can change
// what it remembers. Safe for concurrent use.
type Memo struct {
	mu  sync.Mutex
	uid types.UID
	rv  string
	st  *state.State
}

// lookup is the remembered state when cm is the very ConfigMap it was remembered for.
func (m *Memo) lookup(cm *corev1.ConfigMap) *state.State {
	if m == nil || cm.ResourceVersion == "" {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.st == nil || m.uid != cm.UID || m.rv != cm.ResourceVersion {
		return nil
	}
	return m.st.Clone()
}

// keep remembers st as what cm holds.
func (m *Memo) keep(cm *corev1.ConfigMap, st *state.State) {
	if m == nil || cm == nil || cm.ResourceVersion == "" || st == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.uid, m.rv, m.st = cm.UID, cm.ResourceVersion, st.Clone()
}
