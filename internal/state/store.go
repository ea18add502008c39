package state

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/util/retry"
)

// LabelState marks state ConfigMaps (the agent watches them by it).
const LabelState = "cmp-phase.io/state"

// Store reads and writes one rollout's state ConfigMap.
type Store struct {
	ConfigMaps corev1client.ConfigMapsGetter
	Namespace  string
	Name       string
}

// Decide computes the next state from the current one (nil when there is none). Returning
// cur itself means nothing to write.
type Decide func(cur *State) (*State, error)

// Update is a read-modify-write: it reads the state, asks decide, and writes the result
// with the resourceVersion it read; on a conflict it reads again and decides again, so a
// concurrent edit is never lost. wrote is false when decide changed nothing. A state over
// the size budget is refused before anything is written.
func (s *Store) Update(ctx context.Context, decide Decide) (next *State, wrote bool, err error) {
	err = retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		cm, cur, err := s.read(ctx)
		if err != nil {
			return err
		}
		n, err := decide(cur)
		if err != nil {
			return err
		}
		if n == cur {
			next, wrote = cur, false
			return nil
		}
		if err := ToConfigMap(n, cm); err != nil {
			return err
		}
		cms := s.ConfigMaps.ConfigMaps(s.Namespace)
		if cm.ResourceVersion == "" {
			_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				return apierrors.NewConflict(corev1.Resource("configmaps"), s.Name, err)
			}
		} else {
			_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		}
		next, wrote = n, err == nil
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("update state %s/%s: %w", s.Namespace, s.Name, err)
	}
	return next, wrote, nil
}

// read returns the ConfigMap (a new one when missing) and its decoded state (nil when
// missing or holding no state document yet).
func (s *Store) read(ctx context.Context) (*corev1.ConfigMap, *State, error) {
	cm, err := s.ConfigMaps.ConfigMaps(s.Namespace).Get(ctx, s.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace,
			Labels: map[string]string{LabelState: "true"}}}, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read state: %w", err)
	}
	if len(cm.BinaryData[BinaryKey]) == 0 {
		return cm, nil, nil
	}
	st, err := FromConfigMap(cm)
	if err != nil {
		return nil, nil, err // never overwrite a state we cannot read; it must be rebuilt
	}
	return cm, st, nil
}
