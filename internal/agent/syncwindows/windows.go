package syncwindows

import (
	"fmt"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/cmp-phase/cmp-phase/internal/control"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// ByChild are, by child, the sync windows of the child's AppProject that match it (Argo
// CD's own matching), for the engine to judge at its time; each project is read with get
// and compiled once. A project get does not have has no windows (Argo CD would refuse
// such a child's sync itself).
func ByChild(children map[string]*v1alpha1.Application, get func(project string) (*v1alpha1.AppProject, error)) map[string][]spec.Window {
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
			proj, err := get(pn)
			if err == nil && proj.Spec.SyncWindows.HasWindows() {
				p = project{proj: proj, compiled: Compile(proj)}
			}
			projects[pn] = p
		}
		if p.proj == nil {
			continue
		}
		if ws := Matching(p.proj, p.compiled, app); len(ws) > 0 {
			out[name] = ws
		}
	}
	return out
}

// Of converts the sync windows of proj that match app into change windows
// named appproject/<project>/<index>. A window Argo CD could not evaluate (a bad schedule,
// duration or time zone) denies: Argo CD refuses syncs under it as well.
func Of(proj *v1alpha1.AppProject, app *v1alpha1.Application) []spec.Window {
	return Matching(proj, Compile(proj), app)
}

// Compile compiles every sync window of proj, in order.
func Compile(proj *v1alpha1.AppProject) []spec.Window {
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

// Matching is the compiled windows of proj (Compile) whose sync window matches app.
func Matching(proj *v1alpha1.AppProject, compiled []spec.Window, app *v1alpha1.Application) []spec.Window {
	var out []spec.Window
	for i, sw := range proj.Spec.SyncWindows {
		if (&v1alpha1.SyncWindows{sw}).Matches(app) != nil {
			out = append(out, compiled[i])
		}
	}
	return out
}
