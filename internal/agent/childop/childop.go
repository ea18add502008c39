package childop

import (
	"encoding/json"
	"fmt"
	"maps"
	"strconv"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// MovePatch is the merge patch that gives live the rendered spec, sets the rendered labels
// and annotations (others, like Argo CD's tracking annotation, are kept), and requests a
// sync carrying marker unless an operation is pending. It is conditional on live's
// resourceVersion.
func MovePatch(live, want *v1alpha1.Application, marker string) ([]byte, error) {
	type doc struct {
		Metadata  metav1.ObjectMeta        `json:"metadata"`
		Spec      v1alpha1.ApplicationSpec `json:"spec"`
		Operation *v1alpha1.Operation      `json:"operation,omitempty"`
	}
	from := doc{Metadata: metav1.ObjectMeta{Labels: live.Labels, Annotations: live.Annotations}, Spec: live.Spec, Operation: live.Operation}
	to := doc{Metadata: metav1.ObjectMeta{Labels: overlay(live.Labels, want.Labels), Annotations: overlay(live.Annotations, want.Annotations)},
		Spec: want.Spec, Operation: live.Operation}
	if live.Operation == nil {
		to.Operation = Sync(&want.Spec, marker)
	}
	a, err := json.Marshal(from)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	b, err := json.Marshal(to)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	patch, err := jsonpatch.CreateMergePatch(a, b)
	if err != nil {
		return nil, fmt.Errorf("merge patch: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(patch, &m); err != nil {
		return nil, fmt.Errorf("merge patch: %w", err)
	}
	meta, _ := m["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["resourceVersion"] = live.ResourceVersion
	m["metadata"] = meta
	return json.Marshal(m)
}

// overlay is base with top's entries set over it (a new map).
func overlay(base, top map[string]string) map[string]string {
	out := maps.Clone(base)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, top)
	return out
}

// Sync is the sync the agent starts for a child, as Argo CD's automated sync
// would (its prune setting, sync options and retry), marked as the agent's.
func Sync(spec *v1alpha1.ApplicationSpec, marker string) *v1alpha1.Operation {
	op := &v1alpha1.Operation{
		Sync:        &v1alpha1.SyncOperation{},
		InitiatedBy: v1alpha1.OperationInitiator{Username: "cmp-phase-agent", Automated: true},
		Info:        []*v1alpha1.Info{{Name: contract.OperationInfoAdmission, Value: marker}},
	}
	if sp := spec.SyncPolicy; sp != nil {
		op.Sync.SyncOptions = sp.SyncOptions
		if sp.IsAutomatedSyncEnabled() {
			op.Sync.Prune = sp.Automated.GetPrune()
		}
		if sp.Retry != nil {
			op.Retry = *sp.Retry
		}
	}
	return op
}

// Retry is the agent's sync of a child once more: as it first started it
// (Sync), numbered.
func Retry(spec *v1alpha1.ApplicationSpec, marker string, attempt int) *v1alpha1.Operation {
	op := Sync(spec, marker)
	op.Info = append(op.Info, &v1alpha1.Info{Name: contract.OperationInfoAttempt, Value: strconv.Itoa(attempt)})
	return op
}
