package childop

import (
	"encoding/json"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/agent/observe"
)

// TestMovePatch: the patch gives the child the rendered spec and labels, keeps what others
// wrote (Argo CD's tracking annotation, its status), starts a sync carrying the admission
// marker as automated sync would, and is conditional on the resourceVersion read.
func TestMovePatch(t *testing.T) {
	live := &v1alpha1.Application{
		ObjectMeta: metav1.ObjectMeta{Name: "web-prod-1", Namespace: "argocd", ResourceVersion: "41",
			Labels:      map[string]string{"cmp-phase.io/phase": "", "team": "web"},
			Annotations: map[string]string{"argocd.argoproj.io/tracking-id": "fleet:argoproj.io/Application:argocd/web-prod-1", "cmp-phase.io/revision": "r1"}},
		Spec: v1alpha1.ApplicationSpec{Project: "default",
			Source:      &v1alpha1.ApplicationSource{RepoURL: "https://git/x", Path: "web", TargetRevision: "aaaa", Helm: &v1alpha1.ApplicationSourceHelm{ValueFiles: []string{"old.yaml"}}},
			Destination: v1alpha1.ApplicationDestination{Server: "https://prod-1", Namespace: "web"},
			SyncPolicy:  &v1alpha1.SyncPolicy{Automated: &v1alpha1.SyncPolicyAutomated{Prune: new(true)}, SyncOptions: v1alpha1.SyncOptions{"CreateNamespace=true"}}},
		Status: v1alpha1.ApplicationStatus{Sync: v1alpha1.SyncStatus{Status: v1alpha1.SyncStatusCodeSynced}},
	}
	want := live.DeepCopy()
	want.Labels = map[string]string{"cmp-phase.io/phase": "prod"}
	want.Annotations = map[string]string{"cmp-phase.io/revision": "r2"}
	want.Spec.Source.TargetRevision, want.Spec.Source.Helm = "bbbb", nil

	b, err := MovePatch(live, want, "r2@2026-11-25T12:00:00.5Z")
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := json.Marshal(live)
	out, err := jsonpatch.MergePatch(orig, b)
	if err != nil {
		t.Fatal(err)
	}
	var got v1alpha1.Application
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if !got.Spec.Source.Equals(want.Spec.Source) {
		t.Errorf("spec.source: got %+v, want %+v", got.Spec.Source, want.Spec.Source)
	}
	if got.Labels["cmp-phase.io/phase"] != "prod" || got.Labels["team"] != "web" || got.Annotations["cmp-phase.io/revision"] != "r2" ||
		got.Annotations["argocd.argoproj.io/tracking-id"] == "" {
		t.Errorf("metadata: labels %v annotations %v", got.Labels, got.Annotations)
	}
	if got.Status.Sync.Status != v1alpha1.SyncStatusCodeSynced {
		t.Error("the status is Argo CD's: the patch leaves it")
	}
	op := got.Operation
	if op == nil || op.Sync == nil || !op.Sync.Prune || len(op.Sync.SyncOptions) != 1 || observe.Marker(op.Info) != "r2@2026-11-25T12:00:00.5Z" || !op.InitiatedBy.Automated {
		t.Fatalf("the sync automated sync would start, marked: %+v", op)
	}
	var raw map[string]map[string]any
	_ = json.Unmarshal(b, &raw)
	if raw["metadata"]["resourceVersion"] != "41" {
		t.Fatalf("conditional on the resourceVersion read: %s", b)
	}

	live.Operation = &v1alpha1.Operation{Sync: &v1alpha1.SyncOperation{Revision: "by-a-person"}}
	b, _ = MovePatch(live, want, "r2@x")
	raw = nil
	_ = json.Unmarshal(b, &raw)
	if _, ok := raw["operation"]; ok {
		t.Fatalf("a pending operation is never replaced: %s", b)
	}
}
