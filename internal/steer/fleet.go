package steer

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/util/retry"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/control"
)

// Fleet edits the agent's fleet ConfigMap (Name, default contract.FleetConfigMap) in
// Namespace, by By.
type Fleet struct {
	ConfigMaps corev1client.ConfigMapsGetter
	Namespace  string
	Name       string
	By         string
}

// StopAll pauses every rollout the agent drives, for reason, until ResumeAll.
func (f Fleet) StopAll(ctx context.Context, reason string) error {
	if strings.TrimSpace(reason) == "" {
		return &Refused{Problem: control.Problemf(contract.StopAllKey, "", "a fleet-wide stop needs a reason (fix: --reason)")}
	}
	return f.update(ctx, func(data map[string]string) error {
		data[contract.StopAllKey], data[contract.ByKey] = reason, f.By
		return nil
	})
}

// ResumeAll lifts the fleet-wide stop: rollouts a person paused on their own stay paused.
func (f Fleet) ResumeAll(ctx context.Context) error {
	return f.update(ctx, func(data map[string]string) error {
		if _, on := data[contract.StopAllKey]; !on {
			return &Refused{Problem: control.Problemf(contract.StopAllKey, "", "no fleet-wide stop is on (fix: nothing to resume)")}
		}
		delete(data, contract.StopAllKey)
		data[contract.ByKey] = f.By
		return nil
	})
}

// update reads the fleet ConfigMap (creating it when missing), applies change and writes
// it, again on a concurrent change.
func (f Fleet) update(ctx context.Context, change func(map[string]string) error) error {
	cms, name := f.ConfigMaps.ConfigMaps(f.Namespace), f.Name
	if name == "" {
		name = contract.FleetConfigMap
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cm, err := cms.Get(ctx, name, metav1.GetOptions{})
		missing := apierrors.IsNotFound(err)
		if missing {
			cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.Namespace}}
		} else if err != nil {
			return err
		}
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		if err := change(cm.Data); err != nil {
			return err
		}
		if missing {
			_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				return apierrors.NewConflict(corev1.Resource("configmaps"), cm.Name, err)
			}
			return err
		}
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("fleet ConfigMap %s/%s: %w", f.Namespace, name, err)
	}
	return nil
}
