package agent

import (
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/cmp-phase/cmp-phase/internal/agent/syncwindows"
	"github.com/cmp-phase/cmp-phase/internal/control"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// fleetWindows reads the fleet ConfigMap's change windows from its cache (none when it
// does not exist); a list it cannot read holds every rollout (logged).
func (a *Agent) fleetWindows() []spec.Window {
	cm, err := a.caches.fleet.Get(a.fleetName())
	if err != nil {
		return nil
	}
	ws, problem := control.ParseFleetWindows(cm.Data)
	if problem != nil {
		a.log.Warn("fleet windows unreadable: every rollout held", "configmap", a.fleetName(), "problem", problem.String())
	}
	return ws
}

// projectWindows are, by child, the sync windows of the child's AppProject that match it
// (syncwindows.ByChild, projects read from the cache).
func (a *Agent) projectWindows(children map[string]*v1alpha1.Application) map[string][]spec.Window {
	if a.caches.projects == nil {
		return nil
	}
	return syncwindows.ByChild(children, a.caches.projects.Get)
}
