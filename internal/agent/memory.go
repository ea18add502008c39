package agent

import (
	"maps"
	"slices"
	"sync"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cmp-phase/cmp-phase/internal/observe"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/statestore"
)

// memory is what the agent keeps of one rollout between passes, so a pass works on what
// changed: the state it last decoded or wrote (a state read unchanged is not decoded
// again) and each child's observation by the object version it was made of (a child not
// changed since is not observed again). At 10,000 children these two were most of a
// pass's time and garbage.
type memory struct {
	state *statestore.Memo

	mu   sync.Mutex
	seen map[string]seenChild // child name → its last observation
	// sent: children this agent moved, by the object version it moved them from — until
	// the cache shows them changed, a move of them again would only meet a conflict.
	sent map[string]string
	// parent: the rollout's state annotations last patched onto its parent (parent.go).
	parent map[string]string
}

// seenChild is one child's observation and the object version it was made of.
type seenChild struct {
	uid types.UID
	rv  string
	obs rollout.Observation
}

// memoryOf is the rollout's memory, made on first use.
func (a *Agent) memoryOf(name string) *memory {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.memories == nil {
		a.memories = map[string]*memory{}
	}
	m, ok := a.memories[name]
	if !ok {
		m = &memory{state: &statestore.Memo{}, seen: map[string]seenChild{}, sent: map[string]string{}}
		a.memories[name] = m
	}
	return m
}

// forget drops a rollout's memory (its plan is gone).
func (a *Agent) forget(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.memories, name)
	a.warm.Forget(name)
}

// observe is Observe of every child, reusing the observation of a child whose object
// version is the one observed before; children gone since are forgotten. The memory is
// kept in place: a pass where few children changed writes few entries.
func (m *memory) observe(apps []*v1alpha1.Application) map[string]rollout.Observation {
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

// moved notes that live was moved from the version the cache holds.
func (m *memory) moved(live *v1alpha1.Application) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent[live.Name] = live.ResourceVersion
}

// unmoved drops the moves of children this agent already moved from the version the
// cache still shows (its watch has not brought the move yet); a child the cache shows
// changed since is forgotten, and moved again if it still must be.
func (m *memory) unmoved(moves []rollout.Move, live map[string]*v1alpha1.Application) []rollout.Move {
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
