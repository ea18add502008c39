package agent

import (
	"fmt"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

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
// (Argo CD's own matching), for the engine to judge at its time. A project the cache does
// not have yet has no windows (Argo CD would refuse such a child's sync itself).
func (a *Agent) projectWindows(children map[string]*v1alpha1.Application) map[string][]spec.Window {
	if a.caches.projects == nil {
		return nil
	}
	out := map[string][]spec.Window{}
	type project struct {
		proj     *v1alpha1.AppProject // nil: none, or without windows
		compiled []spec.Window
	}
	projects := map[string]project{} // each project read and compiled once a pass
	for name, app := range children {
		pn := app.Spec.GetProject()
		p, read := projects[pn]
		if !read {
			proj, err := a.caches.projects.Get(pn)
			if err == nil && proj.Spec.SyncWindows.HasWindows() {
				p = project{proj: proj, compiled: compileProject(proj)}
			}
			projects[pn] = p
		}
		if p.proj == nil {
			continue
		}
		if ws := matching(p.proj, p.compiled, app); len(ws) > 0 {
			out[name] = ws
		}
	}
	return out
}

// ProjectWindows converts the sync windows of proj that match app into change windows
// named appproject/<project>/<index>. A window Argo CD could not evaluate (a bad schedule,
// duration or time zone) denies: Argo CD refuses syncs under it as well.
func ProjectWindows(proj *v1alpha1.AppProject, app *v1alpha1.Application) []spec.Window {
	return matching(proj, compileProject(proj), app)
}

// compileProject compiles every sync window of proj, in order.
func compileProject(proj *v1alpha1.AppProject) []spec.Window {
	out := make([]spec.Window, len(proj.Spec.SyncWindows))
	for i, sw := range proj.Spec.SyncWindows {
		name := fmt.Sprintf("appproject/%s/%d", proj.Name, i)
		w := spec.Window{Name: name, Kind: sw.Kind, Schedule: sw.Schedule, Duration: sw.Duration, TimeZone: sw.TimeZone}
		if w.TimeZone == "" {
			w.TimeZone = "UTC"
		}
		if w.Compile() != nil {
			w = control.ClosedWindow(name)
		}
		out[i] = w
	}
	return out
}

// matching is the compiled windows of proj (compileProject) whose sync window matches app.
func matching(proj *v1alpha1.AppProject, compiled []spec.Window, app *v1alpha1.Application) []spec.Window {
	var out []spec.Window
	for i, sw := range proj.Spec.SyncWindows {
		if (&v1alpha1.SyncWindows{sw}).Matches(app) != nil {
			out = append(out, compiled[i])
		}
	}
	return out
}
