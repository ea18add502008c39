package agent

import (
	"testing"
	"time"

	"github.com/argoproj/argo-cd/gitops-engine/pkg/health"
	synccommon "github.com/argoproj/argo-cd/gitops-engine/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/agent/appcache"
	"github.com/cmp-phase/cmp-phase/internal/agent/observe"
	"github.com/cmp-phase/cmp-phase/internal/contract"
)

func liveChild() *v1alpha1.Application {
	src := v1alpha1.ApplicationSource{RepoURL: "https://git.example.com/x.git", Path: "v2", TargetRevision: "HEAD"}
	dst := v1alpha1.ApplicationDestination{Server: "https://10.0.0.1", Namespace: "dev-1"}
	finished := metav1.NewTime(time.Date(2026, 11, 22, 10, 0, 20, 0, time.UTC))
	reconciled := metav1.NewTime(time.Date(2026, 11, 22, 10, 0, 30, 0, time.UTC))
	return &v1alpha1.Application{
		ObjectMeta: metav1.ObjectMeta{Name: "x-dev-1", Annotations: map[string]string{contract.AnnotationRevision: "r2"}},
		Spec:       v1alpha1.ApplicationSpec{Source: &src, Destination: dst},
		Status: v1alpha1.ApplicationStatus{
			Sync:           v1alpha1.SyncStatus{Status: v1alpha1.SyncStatusCodeSynced, ComparedTo: v1alpha1.ComparedTo{Source: src, Destination: dst}},
			Health:         v1alpha1.AppHealthStatus{Status: health.HealthStatusHealthy},
			ReconciledAt:   &reconciled,
			OperationState: &v1alpha1.OperationState{Phase: synccommon.OperationSucceeded, FinishedAt: &finished},
		},
	}
}

func TestTheCachesNeverHoldCredentialsOrBulk(t *testing.T) {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "c", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
		Annotations: map[string]string{corev1.LastAppliedConfigAnnotation: "{config}", "team": "a"}},
		Data: map[string][]byte{"name": []byte("dev"), "server": []byte("https://x"), "config": []byte(`{"bearerToken":"s3cr3t"}`)}}
	out, _ := appcache.Secret(s)
	got := out.(*corev1.Secret)
	if _, ok := got.Data["config"]; ok || got.ManagedFields != nil || got.Annotations[corev1.LastAppliedConfigAnnotation] != "" || got.Annotations["team"] != "a" {
		t.Fatalf("%+v", got)
	}
	app := liveChild()
	app.Status.Resources = []v1alpha1.ResourceStatus{{Name: "big"}}
	app.Status.History = v1alpha1.RevisionHistories{{ID: 1}}
	app.Status.OperationState.SyncResult = &v1alpha1.SyncOperationResult{Resources: v1alpha1.ResourceResults{{Name: "big"}}}
	trimmed, _ := appcache.App(app)
	if a := trimmed.(*v1alpha1.Application); a.Status.Resources != nil || a.Status.History != nil || a.Status.OperationState.SyncResult.Resources != nil {
		t.Fatalf("%+v", a.Status)
	}
	if o := observe.Child(trimmed.(*v1alpha1.Application)); o.Health != "Healthy" || o.OperationPhase != "Succeeded" {
		t.Fatalf("trimming lost what the engine reads: %+v", o)
	}
}
