package agent

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/control"
)

// fleetStop reads the fleet-wide stop from the fleet ConfigMap's cache: nil when none is
// on (or no fleet ConfigMap exists). Keys it does not know are logged, and ignored.
func (a *Agent) fleetStop() *control.FleetStop {
	cm, err := a.caches.fleet.Get(a.fleetName())
	if err != nil {
		return nil
	}
	stop, problems := control.ParseFleet(cm.Data)
	for _, p := range problems {
		a.log.Warn("fleet ConfigMap key ignored", "configmap", a.fleetName(), "problem", p.String())
	}
	return stop
}

// everyRollout enqueues every rollout this agent drives (a new inventory, a fleet-wide
// stop or its end concerns them all).
func (a *Agent) everyRollout() error {
	plans, err := a.caches.plans.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("list plans: %w", err)
	}
	for _, cm := range plans {
		if r := cm.Labels[contract.LabelRollout]; r != "" {
			a.queue.Add(r)
		}
	}
	return nil
}

// fleetName is the fleet ConfigMap's name.
func (a *Agent) fleetName() string {
	if a.opts.FleetConfigMap == "" {
		return contract.FleetConfigMap
	}
	return a.opts.FleetConfigMap
}
