package agent

import (
	"slices"
	"sync"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// cascadeMemory remembers the parents the watch saw being deleted with Argo CD's resources
// finalizer still on them: Argo CD's controller takes it off within moments (every child is
// Delete=false), usually before a reconcile reads the parent.
type cascadeMemory struct {
	mu   sync.Mutex
	uids map[types.UID]bool
}

// note records app when it is being deleted with the resources finalizer on.
func (m *cascadeMemory) note(app *v1alpha1.Application) {
	if app.DeletionTimestamp == nil || !slices.ContainsFunc(app.Finalizers, contract.IsResourcesFinalizer) {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.uids == nil {
		m.uids = map[types.UID]bool{}
	}
	m.uids[app.UID] = true
}

func (m *cascadeMemory) seen(uid types.UID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.uids[uid]
}

// forget drops a parent let go.
func (m *cascadeMemory) forget(uid types.UID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.uids, uid)
}
