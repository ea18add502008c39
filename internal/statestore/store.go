package statestore

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/util/retry"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Store reads and writes one rollout's state ConfigMap.
type Store struct {
	ConfigMaps corev1client.ConfigMapsGetter
	Namespace  string
	Name       string
	OnConflict func() // called when a write met a concurrent change (optional)
	Memo       *Memo  // skips decoding a ConfigMap read unchanged (optional)
}

// Decide computes the next state from the current one (nil when there is none). Returning
// cur itself means nothing to write.
type Decide func(cur *state.State) (*state.State, error)

// Edit is what a decision changes: Next (cur itself: unchanged) and data keys of the
// ConfigMap to set (a value) or remove (nil) — the control keys a person wrote and the
// status the agent shows them live in the same ConfigMap, so both change in one write.
type Edit struct {
	Next *state.State
	Data map[string]*string
}

// DecideCM is Decide with the ConfigMap's data (read-only) in view.
type DecideCM func(data map[string]string, cur *state.State) (Edit, error)

// Update is UpdateCM for a decision that touches only the state.
func (s *Store) Update(ctx context.Context, decide Decide) (next *state.State, wrote bool, err error) {
	return s.UpdateCM(ctx, func(_ map[string]string, cur *state.State) (Edit, error) {
		n, err := decide(cur)
		return Edit{Next: n}, err
	})
}

// UpdateCM is a read-modify-write: it reads the ConfigMap, asks decide, and writes the
// result with the resourceVersion it read; on a conflict it reads again and decides again,
// so a concurrent edit (a person's or another writer's) is never lost. wrote is false when
// nothing changed. A state over the size budget is refused before anything is written.
func (s *Store) UpdateCM(ctx context.Context, decide DecideCM) (next *state.State, wrote bool, err error) {
	err = retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		cm, cur, err := s.read(ctx)
		if err != nil {
			return err
		}
		e, err := decide(maps.Clone(cm.Data), cur)
		if err != nil {
			return err
		}
		dataChanged := applyData(cm, e.Data)
		if e.Next == cur && !dataChanged {
			next, wrote = cur, false
			return nil
		}
		if e.Next != cur {
			// the state a read would refuse is never written (nor remembered by Memo,
			// whose reads skip the decode and its checks)
			if err := e.Next.Validate(); err != nil {
				return fmt.Errorf("refusing to write an invalid state: %w", err)
			}
			if err := state.ToConfigMap(e.Next, cm); err != nil {
				return err
			}
		}
		labelled(cm)
		next, wrote = e.Next, true
		written, err := s.write(ctx, cm)
		if apierrors.IsConflict(err) && s.OnConflict != nil {
			s.OnConflict()
		}
		if err == nil && e.Next != nil {
			s.Memo.keep(written, e.Next)
		}
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("update state %s/%s: %w", s.Namespace, s.Name, err)
	}
	return next, wrote, nil
}

// labelled gives the state ConfigMap its label (a ConfigMap restored without it is
// labelled again by the next write: the sidecar lists states by it).
func labelled(cm *corev1.ConfigMap) {
	if cm.Labels[contract.LabelState] == contract.MarkerValue {
		return
	}
	if cm.Labels == nil {
		cm.Labels = map[string]string{}
	}
	cm.Labels[contract.LabelState] = contract.MarkerValue
}

// applyData sets and removes data keys; it reports whether anything changed.
func applyData(cm *corev1.ConfigMap, edits map[string]*string) bool {
	changed := false
	for k, v := range edits {
		old, had := cm.Data[k]
		switch {
		case v == nil && had:
			delete(cm.Data, k)
			changed = true
		case v != nil && (!had || old != *v):
			if cm.Data == nil {
				cm.Data = map[string]string{}
			}
			cm.Data[k] = *v
			changed = true
		}
	}
	return changed
}

// write updates (or creates) the ConfigMap; it returns what the API server stored.
func (s *Store) write(ctx context.Context, cm *corev1.ConfigMap) (*corev1.ConfigMap, error) {
	cms := s.ConfigMaps.ConfigMaps(s.Namespace)
	if cm.ResourceVersion != "" {
		return cms.Update(ctx, cm, metav1.UpdateOptions{})
	}
	made, err := cms.Create(ctx, cm, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil, apierrors.NewConflict(corev1.Resource("configmaps"), s.Name, err)
	}
	return made, err
}

// read returns the ConfigMap (a new one when missing) and its decoded state (nil when
// missing or holding no state document yet).
func (s *Store) read(ctx context.Context) (*corev1.ConfigMap, *state.State, error) {
	cm, err := s.ConfigMaps.ConfigMaps(s.Namespace).Get(ctx, s.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace,
			Labels: map[string]string{contract.LabelState: contract.MarkerValue}}}, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read state: %w", err)
	}
	if len(cm.BinaryData[contract.StateKey]) == 0 {
		return cm, nil, nil
	}
	if st := s.Memo.lookup(cm); st != nil {
		return cm, st, nil
	}
	st, err := state.FromConfigMap(cm)
	if err != nil {
		return nil, nil, err // never overwrite a state we cannot read; it must be rebuilt
	}
	s.Memo.keep(cm, st)
	return cm, st, nil
}
