package cmpserver

import (
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// maxRollouts bounds how many rollouts' decoded states the sidecar keeps: one state each,
// the current one. (A decoded state of 10,000 clusters mid-rollout is ≈ 3.4 MiB; keeping
// every recent generation of it, as a cache by resourceVersion did, held ≈ 200 MiB.)
const maxRollouts = 32

// version names one content of a ConfigMap: a ConfigMap deleted and created again under
// the same name is another object, so the UID is part of it.
type version struct {
	uid types.UID
	rv  string
}

func versionOf(cm *corev1.ConfigMap) version { return version{uid: cm.UID, rv: cm.ResourceVersion} }

// entry is one decode of one version, done once however many renders ask for it at once.
type entry[T any] struct {
	ver  version
	once sync.Once
	val  T
	err  error
}

func (e *entry[T]) get(decode func() (T, error)) (T, error) {
	e.once.Do(func() { e.val, e.err = decode() })
	return e.val, e.err
}

// decoded keeps the decoded state of each rollout (its latest version only) and the
// decoded inventory (its latest version only). Renders of a version decode it once;
// a new version replaces the old one, so memory is one state per rollout and one inventory.
// An error is kept like a value: the same bytes fail the same way.
type decoded struct {
	mu     sync.Mutex
	states *lru.Cache[string, *entry[*state.State]]
	inv    *entry[*inventory.Inventory]
}

func newDecoded(rollouts int) *decoded {
	states, _ := lru.New[string, *entry[*state.State]](max(rollouts, 1))
	return &decoded{states: states}
}

// state returns rollout's state as cm holds it, decoding it only when cm changed.
func (d *decoded) state(rollout string, cm *corev1.ConfigMap, decode func(*corev1.ConfigMap) (*state.State, error)) (*state.State, error) {
	ver := versionOf(cm)
	d.mu.Lock()
	e, ok := d.states.Get(rollout)
	if !ok || e.ver != ver {
		e = &entry[*state.State]{ver: ver}
		d.states.Add(rollout, e)
	}
	d.mu.Unlock()
	return e.get(func() (*state.State, error) { return decode(cm) })
}

// inventory returns the inventory as cm holds it, decoding it only when cm changed. The
// same version gives the same object: the renderer keeps parameters per inventory object.
func (d *decoded) inventory(cm *corev1.ConfigMap, decode func(*corev1.ConfigMap) (*inventory.Inventory, error)) (*inventory.Inventory, error) {
	ver := versionOf(cm)
	d.mu.Lock()
	e := d.inv
	if e == nil || e.ver != ver {
		e = &entry[*inventory.Inventory]{ver: ver}
		d.inv = e
	}
	d.mu.Unlock()
	return e.get(func() (*inventory.Inventory, error) { return decode(cm) })
}
