package observe

import (
	"fmt"
	"strconv"
	"strings"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/pkg/sync/common"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
)

// Child reads what the engine needs from a live child Application.
func Child(app *v1alpha1.Application) rollout.Observation {
	o := rollout.Observation{
		Revision:     app.Annotations[contract.AnnotationRevision],
		Unselected:   app.Annotations[contract.AnnotationUnselected] != "",
		SpecCompared: compared(app),
		SyncStatus:   string(app.Status.Sync.Status),
		Health:       string(app.Status.Health.Status),
		Cluster:      app.Labels[contract.LabelCluster],
	}
	if app.Status.ReconciledAt != nil {
		o.ReconciledAt = app.Status.ReconciledAt.Time
	}
	o.OperationPending = app.Operation != nil
	o.AutoSync = app.Spec.SyncPolicy != nil && app.Spec.SyncPolicy.IsAutomatedSyncEnabled()
	o.Deleting = app.DeletionTimestamp != nil
	if op := app.Status.OperationState; op != nil {
		o.OperationStartedAt = op.StartedAt.Time
		o.OperationPhase, o.OperationMessage = string(op.Phase), operationMessage(op)
		if op.FinishedAt != nil {
			o.OperationFinishedAt = op.FinishedAt.Time
		}
		if syncedSpec(app, op.SyncResult) {
			o.OperationMarker = Marker(op.Operation.Info)
			o.OperationAttempt = Attempt(op.Operation.Info)
		}
		o.ArgoCDRetries = op.Operation.Retry.Limit != 0
	}
	return o
}

// maxFailedResources and maxResourceMessage bound what operationMessage adds.
const (
	maxFailedResources = 3
	maxResourceMessage = 300
)

// operationMessage is the operation's message and, when its sync result names resources
// that failed, theirs: Argo CD's own message is often generic ("one or more objects failed
// to apply (dry run)") while the resource's says why (a connection reset by a restarting API
// server, a forbidden verb), which tells a transient failure from a permanent one and the
// person reading the reason what happened. Each resource's is its last line, bounded.
func operationMessage(op *v1alpha1.OperationState) string {
	msg := op.Message
	if op.SyncResult == nil {
		return msg
	}
	failed := FailedResources(op.SyncResult.Resources)
	for i, r := range failed {
		if i == maxFailedResources {
			msg += "; …"
			break
		}
		msg += fmt.Sprintf("; %s %s/%s: %s", r.Kind, r.Namespace, r.Name, r.Message)
	}
	return msg
}

// FailedResources are the resources of a sync result that failed with a message, each
// message cut to its last line (bounded): at most maxFailedResources+1 (one more says there
// are more). The informer keeps only these of an Application's sync result.
func FailedResources(rs v1alpha1.ResourceResults) v1alpha1.ResourceResults {
	var out v1alpha1.ResourceResults
	for _, r := range rs {
		if r == nil || r.Message == "" || (r.Status != synccommon.ResultCodeSyncFailed && r.HookPhase != synccommon.OperationFailed && r.HookPhase != synccommon.OperationError) {
			continue
		}
		if len(out) > maxFailedResources {
			break
		}
		c := *r
		line := strings.TrimSpace(c.Message)
		if i := strings.LastIndexByte(line, '\n'); i >= 0 {
			line = strings.TrimSpace(line[i+1:])
		}
		if len(line) > maxResourceMessage {
			line = strings.ToValidUTF8(line[:maxResourceMessage], "") + "…"
		}
		c.Message = line
		out = append(out, &c)
	}
	return out
}

// Marker is the agent's admission marker among an operation's info, "" when none.
func Marker(info []*v1alpha1.Info) string {
	for _, i := range info {
		if i != nil && i.Name == contract.OperationInfoAdmission {
			return i.Value
		}
	}
	return ""
}

// Attempt is the agent's attempt number among an operation's info, 0 when none.
func Attempt(info []*v1alpha1.Info) int {
	for _, i := range info {
		if i != nil && i.Name == contract.OperationInfoAttempt {
			if n, err := strconv.Atoi(i.Value); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// syncedSpec reports whether a sync result is of the source(s) the child has now (no
// result yet: it is, the sync runs with the spec).
func syncedSpec(app *v1alpha1.Application, r *v1alpha1.SyncOperationResult) bool {
	if r == nil {
		return true
	}
	if app.Spec.HasMultipleSources() {
		return r.Sources.Equals(app.Spec.Sources)
	}
	return r.Source.Equals(app.Spec.Source)
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
