package agent

import (
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
)

// Observe reads what the engine needs from a live child Application.
func Observe(app *v1alpha1.Application) rollout.Observation {
	o := rollout.Observation{
		Revision:     app.Annotations[contract.AnnotationRevision],
		SpecCompared: compared(app),
		SyncStatus:   string(app.Status.Sync.Status),
		Health:       string(app.Status.Health.Status),
	}
	if app.Status.ReconciledAt != nil {
		o.ReconciledAt = app.Status.ReconciledAt.Time
	}
	if op := app.Status.OperationState; op != nil {
		o.OperationPhase, o.OperationMessage = string(op.Phase), op.Message
		if op.FinishedAt != nil {
			o.OperationFinishedAt = op.FinishedAt.Time
		}
	}
	return o
}

// compared reports whether the status compares the spec the child has now: the same
// source(s) and destination (a destination given by name or server alone matches on that).
func compared(app *v1alpha1.Application) bool {
	c, spec := app.Status.Sync.ComparedTo, app.Spec
	if spec.HasMultipleSources() {
		if !c.Sources.Equals(spec.Sources) {
			return false
		}
	} else if !c.Source.Equals(spec.Source) {
		return false
	}
	d, want := c.Destination, spec.Destination
	return d.Namespace == want.Namespace && (want.Server == "" || d.Server == want.Server) && (want.Name == "" || d.Name == want.Name)
}
