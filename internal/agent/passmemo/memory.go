package passmemo

import (
	"maps"
	"slices"
	"sync"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cmp-phase/cmp-phase/internal/agent/observe"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/statestore"
)

// Set is the memories of the rollouts of one agent, by rollout name; its zero value is
// ready to use and it is safe for concurrent use.
type Set struct {
	mu sync.Mutex
	m  map[string]*Memory
}

// Of is the rollout's memory, made on first use.
func (s *Set) Of(name string) *Memory {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]*Memory{}
	}
	m, ok := s.m[name]
	if !ok {
		m = &Memory{State: &statestore.Memo{}, seen: map[string]seenChild{}, sent: map[string]string{}}
		s.m[name] = m
	}
	return m
}

// Forget drops a rollout's memory (its plan is gone).
func (s *Set) Forget(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, name)
}

// Memory is what the agent keeps of one rollout between passes.
type Memory struct {
	// State is the state last decoded or written, for the rollout's statestore.Store.
	State *statestore.Memo

	mu   sync.Mutex
	seen map[string]seenChild // child name → its last observation
	// sent: children this agent moved, by the object version it moved them from — until
	// the cache shows them changed, a move of them again would only meet a conflict.
	sent map[string]string
	// parent: the rollout's state annotations last patched onto its parent.
	parent map[string]string
}

// seenChild is one child's observation and the object version it was made of.
type seenChild struct {
	uid types.UID
	rv  string
	obs rollout.Observation
}

// Observe is observe.Child of every child, reusing the observation of a child whose
// object version is the one observed before; children gone since are forgotten. The
// memory is kept in place: a pass where few children changed writes few entries.
func (m *Memory) Observe(apps []*v1alpha1.Application) map[string]rollout.Observation {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]rollout.Observation, len(apps))
	known := 0 // apps already in seen (names are unique): fewer than seen holds means some left
	before := len(m.seen)
	for _, app := range apps {
		s, ok := m.seen[app.Name]
		if ok {
			known++
		}
		if !ok || app.ResourceVersion == "" || s.uid != app.UID || s.rv != app.ResourceVersion {
			s = seenChild{uid: app.UID, rv: app.ResourceVersion, obs: observe.Child(app)}
			m.seen[app.Name] = s
		}
		out[app.Name] = s.obs
	}
	if known < before {
		maps.DeleteFunc(m.seen, func(name string, _ seenChild) bool {
			_, live := out[name]
			return !live
		})
	}
	return out
}

// Moved notes that live was moved from the version the cache holds.
func (m *Memory) Moved(live *v1alpha1.Application) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent[live.Name] = live.ResourceVersion
}

// Unmoved drops the moves of children this agent already moved from the version the
// cache still shows (its watch has not brought the move yet); a child the cache shows
// changed since is forgotten, and moved again if it still must be. moves is not changed.
func (m *Memory) Unmoved(moves []rollout.Move, live map[string]*v1alpha1.Application) []rollout.Move {
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, rv := range m.sent {
		if app, ok := live[name]; !ok || app.ResourceVersion != rv {
			delete(m.sent, name)
		}
	}
	return slices.DeleteFunc(slices.Clone(moves), func(mv rollout.Move) bool {
		app, ok := live[mv.Child]
		return ok && app.ResourceVersion != "" && m.sent[mv.Child] == app.ResourceVersion
	})
}

// Parent is the rollout's state annotations this agent last patched onto its parent (nil:
// none yet).
func (m *Memory) Parent() map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.parent
}

// SetParent notes the annotations just patched onto the parent.
func (m *Memory) SetParent(patched map[string]string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.parent = patched
}
