package statestore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// oneConfigMap is an API server of one ConfigMap that counts resourceVersions, as the
// real one does (client-go's fake tracker leaves them empty).
type oneConfigMap struct {
	corev1client.ConfigMapInterface
	cm *corev1.ConfigMap
	rv int
}

func (f *oneConfigMap) ConfigMaps(string) corev1client.ConfigMapInterface { return f }

func (f *oneConfigMap) Get(_ context.Context, name string, _ metav1.GetOptions) (*corev1.ConfigMap, error) {
	if f.cm == nil {
		return nil, apierrors.NewNotFound(corev1.Resource("configmaps"), name)
	}
	return f.cm.DeepCopy(), nil
}

func (f *oneConfigMap) store(cm *corev1.ConfigMap) (*corev1.ConfigMap, error) {
	f.rv++
	f.cm = cm.DeepCopy()
	f.cm.UID, f.cm.ResourceVersion = "uid-1", strconv.Itoa(f.rv)
	return f.cm.DeepCopy(), nil
}

func (f *oneConfigMap) Create(_ context.Context, cm *corev1.ConfigMap, _ metav1.CreateOptions) (*corev1.ConfigMap, error) {
	return f.store(cm)
}

func (f *oneConfigMap) Update(_ context.Context, cm *corev1.ConfigMap, _ metav1.UpdateOptions) (*corev1.ConfigMap, error) {
	if cm.ResourceVersion != f.cm.ResourceVersion {
		return nil, apierrors.NewConflict(corev1.Resource("configmaps"), cm.Name, nil)
	}
	return f.store(cm)
}

func TestMemoSkipsDecodingAnUnchangedConfigMapOnly(t *testing.T) {
	ctx := context.Background()
	api := &oneConfigMap{}
	s := &Store{ConfigMaps: api, Namespace: "argocd", Name: "r-state", Memo: &Memo{}}
	want := bigState(1000)
	if _, _, err := s.Update(ctx, func(*state.State) (*state.State, error) { return want, nil }); err != nil {
		t.Fatal(err)
	}
	written := api.cm.BinaryData[contract.StateKey]
	// Same resourceVersion, unreadable bytes: only the memo can answer.
	api.cm.BinaryData[contract.StateKey] = []byte("not gzip")
	var got *state.State
	if _, _, err := s.Update(ctx, func(cur *state.State) (*state.State, error) { got = cur; return cur, nil }); err != nil {
		t.Fatalf("read of the ConfigMap it wrote: %v", err)
	}
	enc, err := state.Encode(got)
	if err != nil || !bytes.Equal(enc, written) {
		t.Fatalf("the remembered state does not encode to the bytes written (err %v)", err)
	}
	got.Rollout.Phases[0].Admitted[0] = "changed by a caller"
	got.Generation = 1
	if _, _, err := s.Update(ctx, func(cur *state.State) (*state.State, error) { got = cur; return cur, nil }); err != nil {
		t.Fatal(err)
	}
	if got.Generation != want.Generation || got.Rollout.Phases[0].Admitted[0] == "changed by a caller" {
		t.Fatalf("a caller's change reached the memo")
	}
	// Another writer: a new resourceVersion is decoded, and its corruption is an error.
	api.cm.ResourceVersion = "99"
	if _, _, err := s.Update(ctx, func(cur *state.State) (*state.State, error) { return cur, nil }); err == nil {
		t.Fatalf("a changed ConfigMap was answered from the memo")
	}
}

// TestAStateAReadWouldRefuseIsNeverWritten: the memo answers reads without decoding, so
// the checks a decode makes run before a write instead; a write labels the ConfigMap.
func TestAStateAReadWouldRefuseIsNeverWritten(t *testing.T) {
	ctx := context.Background()
	api := &oneConfigMap{}
	s := &Store{ConfigMaps: api, Namespace: "argocd", Name: "r-state", Memo: &Memo{}}
	bad := bigState(10)
	bad.Children[0], bad.Children[1] = bad.Children[1], bad.Children[0]
	if _, _, err := s.Update(ctx, func(*state.State) (*state.State, error) { return bad, nil }); err == nil || api.cm != nil {
		t.Fatalf("an unsorted state was written (err %v)", err)
	}
	if _, _, err := s.Update(ctx, func(*state.State) (*state.State, error) { return bigState(10), nil }); err != nil {
		t.Fatal(err)
	}
	delete(api.cm.Labels, contract.LabelState) // restored from a backup without it
	next := bigState(10)
	next.Generation++
	if _, _, err := s.Update(ctx, func(*state.State) (*state.State, error) { return next, nil }); err != nil {
		t.Fatal(err)
	}
	if api.cm.Labels[contract.LabelState] != contract.MarkerValue {
		t.Fatalf("the write did not label the state ConfigMap: %v", api.cm.Labels)
	}
}

// bigState is a state of n deployed children, half of them admitted to a new revision.
func bigState(n int) *state.State {
	children := make([]string, n)
	for i := range children {
		children[i] = fmt.Sprintf("payments-api-prod-%05d", i)
	}
	rev := json.RawMessage(`{"template":{"metadata":{"name":"payments-api-{{name}}"}}}`)
	return &state.State{Schema: state.Schema, Generation: 7, Deployed: "aaaaaaaaaaaaaaaa", Children: children,
		Revisions: map[string]json.RawMessage{"aaaaaaaaaaaaaaaa": rev, "cccccccccccccccc": rev},
		Rollout: &state.Rollout{Revision: "cccccccccccccccc", Status: "Progressing", StartedAt: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC),
			Phases: []state.PhaseState{{Name: "prod", Members: children, Admitted: children[:n/2]}}}}
}
