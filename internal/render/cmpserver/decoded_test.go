package cmpserver

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

func cmAt(name, uid, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(uid), ResourceVersion: rv}}
}

// countingState decodes to a fresh state named by the ConfigMap's version, counting calls.
func countingState(calls *atomic.Int32, err error) func(*corev1.ConfigMap) (*state.State, error) {
	return func(cm *corev1.ConfigMap) (*state.State, error) {
		calls.Add(1)
		if err != nil {
			return nil, err
		}
		return &state.State{Deployed: string(cm.UID) + "@" + cm.ResourceVersion}, nil
	}
}

// TestDecodedStateOncePerVersion: a state is decoded once per version of its ConfigMap
// (UID and resourceVersion), a new version replaces the old one, and errors are kept
// like values until the ConfigMap changes.
func TestDecodedStateOncePerVersion(t *testing.T) {
	bad := errors.New("corrupt")
	for _, tc := range []struct {
		name      string
		seq       []*corev1.ConfigMap
		err       error
		wantCalls int32
		want      string // the last answer's Deployed
	}{
		{"the same version twice", []*corev1.ConfigMap{cmAt("a-state", "u1", "5"), cmAt("a-state", "u1", "5")}, nil, 1, "u1@5"},
		{"a new resourceVersion", []*corev1.ConfigMap{cmAt("a-state", "u1", "5"), cmAt("a-state", "u1", "6")}, nil, 2, "u1@6"},
		{"recreated: a new UID, the same resourceVersion", []*corev1.ConfigMap{cmAt("a-state", "u1", "5"), cmAt("a-state", "u2", "5")}, nil, 2, "u2@5"},
		{"back to an older version decodes it again", []*corev1.ConfigMap{cmAt("a-state", "u1", "5"), cmAt("a-state", "u1", "6"), cmAt("a-state", "u1", "5")}, nil, 3, "u1@5"},
		{"an error is kept for its version", []*corev1.ConfigMap{cmAt("a-state", "u1", "5"), cmAt("a-state", "u1", "5")}, bad, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDecoded(4)
			var calls atomic.Int32
			var got *state.State
			var err error
			for _, cm := range tc.seq {
				got, err = d.state("a", cm, countingState(&calls, tc.err))
			}
			if calls.Load() != tc.wantCalls {
				t.Errorf("decoded %d times, want %d", calls.Load(), tc.wantCalls)
			}
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("error %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil || got.Deployed != tc.want {
				t.Fatalf("got %+v, %v; want the decode of %s", got, err, tc.want)
			}
			if d.states.Len() != 1 {
				t.Errorf("%d states kept for one rollout, want 1", d.states.Len())
			}
		})
	}
}

// TestDecodedStateSameObject: renders of one version share one decoded state.
func TestDecodedStateSameObject(t *testing.T) {
	d := newDecoded(4)
	var calls atomic.Int32
	a, _ := d.state("a", cmAt("a-state", "u", "1"), countingState(&calls, nil))
	b, _ := d.state("a", cmAt("a-state", "u", "1"), countingState(&calls, nil))
	if a != b {
		t.Fatal("two decodes of one version")
	}
}

// TestDecodedStateConcurrentRendersDecodeOnce: shards rendering a new generation at once
// decode it once.
func TestDecodedStateConcurrentRendersDecodeOnce(t *testing.T) {
	d := newDecoded(4)
	var calls atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if _, err := d.state("a", cmAt("a-state", "u", "7"), countingState(&calls, nil)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if calls.Load() != 1 {
		t.Fatalf("decoded %d times, want 1", calls.Load())
	}
}

// TestDecodedStatesBounded: more rollouts than the bound keep only the most recent ones.
func TestDecodedStatesBounded(t *testing.T) {
	d := newDecoded(3)
	var calls atomic.Int32
	for i := range 10 {
		name := fmt.Sprintf("r%d", i)
		if _, err := d.state(name, cmAt(name+"-state", "u", "1"), countingState(&calls, nil)); err != nil {
			t.Fatal(err)
		}
	}
	if d.states.Len() != 3 {
		t.Fatalf("%d states kept, want 3", d.states.Len())
	}
}

// TestDecodedInventoryOncePerVersion: one inventory object per version (the renderer keeps
// parameters per inventory object), decoded once; a new version replaces it.
func TestDecodedInventoryOncePerVersion(t *testing.T) {
	d := newDecoded(1)
	var calls atomic.Int32
	decode := func(cm *corev1.ConfigMap) (*inventory.Inventory, error) {
		calls.Add(1)
		return &inventory.Inventory{Clusters: []inventory.Cluster{{Name: cm.ResourceVersion}}}, nil
	}
	a, _ := d.inventory(cmAt(contract.InventoryConfigMap, "u", "1"), decode)
	b, _ := d.inventory(cmAt(contract.InventoryConfigMap, "u", "1"), decode)
	c, _ := d.inventory(cmAt(contract.InventoryConfigMap, "u", "2"), decode)
	if a != b || calls.Load() != 2 || c == a || c.Clusters[0].Name != "2" {
		t.Fatalf("same version: same object %v; decodes %d (want 2); new version decoded %v", a == b, calls.Load(), c != a)
	}
}

// TestKeepKeysTrims: the informers cache a ConfigMap without managedFields and with only
// the keys a render reads; no keys: metadata only.
func TestKeepKeysTrims(t *testing.T) {
	full := func() *corev1.ConfigMap {
		return &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "x", Labels: map[string]string{"l": "v"}, Annotations: map[string]string{"a": "v"},
				ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "agent"}}},
			Data:       map[string]string{contract.GenerationKey: "3", contract.StatusKey: "a long status", contract.PauseKey: "why"},
			BinaryData: map[string][]byte{contract.StateKey: []byte("gz"), "other": []byte("x")},
		}
	}
	for _, tc := range []struct {
		name     string
		keys     []string
		wantData map[string]string
		wantBin  map[string][]byte
	}{
		{"state", []string{contract.StateKey, contract.GenerationKey}, map[string]string{contract.GenerationKey: "3"}, map[string][]byte{contract.StateKey: []byte("gz")}},
		{"inventory keys absent", []string{contract.InventoryKey, contract.InventoryGzipKey}, nil, nil},
		{"metadata only", nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj, err := keepKeys(tc.keys...)(full())
			if err != nil {
				t.Fatal(err)
			}
			cm := obj.(*corev1.ConfigMap)
			if cm.ManagedFields != nil || cm.Labels["l"] != "v" || cm.Annotations["a"] != "v" {
				t.Errorf("metadata: %+v", cm.ObjectMeta)
			}
			if fmt.Sprint(cm.Data) != fmt.Sprint(tc.wantData) || fmt.Sprint(cm.BinaryData) != fmt.Sprint(tc.wantBin) {
				t.Errorf("data %v binaryData %v, want %v %v", cm.Data, cm.BinaryData, tc.wantData, tc.wantBin)
			}
		})
	}
	if obj, err := keepKeys()("not a configmap"); err != nil || obj != "not a configmap" {
		t.Fatalf("other objects pass: %v %v", obj, err)
	}
}

// TestInformerStoreReadsThroughDecoded: the store decodes the state and inventory
// ConfigMaps it lists, once per version, and finds a parent's rollout by its plan.
func TestInformerStoreReadsThroughDecoded(t *testing.T) {
	ns := contract.DefaultNamespace
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	st := &state.State{Schema: state.Schema, Generation: 2}
	scm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: contract.StateConfigMap("r"), Namespace: ns, UID: "s", ResourceVersion: "1"}}
	if err := state.ToConfigMap(st, scm); err != nil {
		t.Fatal(err)
	}
	icm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: contract.InventoryConfigMap, Namespace: ns, UID: "i", ResourceVersion: "1"},
		Data: map[string]string{contract.InventoryKey: `{"clusters":[{"name":"a","server":"https://a"}]}`}}
	pcm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: contract.PlanConfigMap("r"), Namespace: ns,
		Labels: map[string]string{contract.LabelRollout: "r"}, Annotations: map[string]string{contract.AnnotationParent: "parent-r"}}}
	for _, cm := range []*corev1.ConfigMap{scm, icm, pcm} {
		if err := idx.Add(cm); err != nil {
			t.Fatal(err)
		}
	}
	l := listers.NewConfigMapLister(idx).ConfigMaps(ns)
	s := newStore(ns, l, l, l)
	a, err1 := s.State("r")
	b, err2 := s.State("r")
	none, err3 := s.State("missing")
	if err1 != nil || err2 != nil || err3 != nil || a != b || a.Generation != 2 || none != nil {
		t.Fatalf("state: %v %v %v, same object %v, missing %v", err1, err2, err3, a == b, none)
	}
	inv, err := s.Inventory()
	if err != nil || len(inv.Clusters) != 1 {
		t.Fatalf("inventory: %v %v", inv, err)
	}
	if r, ok := s.RolloutOf("parent-r"); !ok || r != "r" {
		t.Fatalf("RolloutOf: %q %v", r, ok)
	}
	if _, ok := s.RolloutOf("other"); ok {
		t.Fatal("RolloutOf an unknown parent")
	}
}
