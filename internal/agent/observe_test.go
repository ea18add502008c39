package agent

import (
	"strings"
	"testing"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/cmp-phase/cmp-phase/internal/agent/appcache"
	"github.com/cmp-phase/cmp-phase/internal/agent/observe"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
)

// TestAFailedResourceSaysWhyTheSyncFailed: Argo CD's operation message is generic when an
// object fails in the dry run; the resource's own message (its last line) is added, so a
// connection cut by a restarting API server is told transient, a forbidden verb permanent,
// as the fault suite's run showed — also once the informer trimmed the Application (it
// dropped the sync result's resources before, and the fault suite stopped on a cut dry run).
func TestAFailedResourceSaysWhyTheSyncFailed(t *testing.T) {
	cut := "error when retrieving current configuration of:\nResource: \"/v1, Resource=configmaps\"\nName: \"faults\", Namespace: \"dev-1\"\nfrom server for: \"/dev/shm/1\": Get \"https://127.0.0.2:1/api/v1/namespaces/dev-1/configmaps/faults\": EOF"
	forbidden := "configmaps \"away\" is forbidden: User \"argocd-prod-2\" cannot get resource \"configmaps\" in API group \"\" in the namespace \"prod-2\""
	for msg, want := range map[string]rollout.FailureKind{cut: rollout.Transient, forbidden: rollout.Permanent} {
		app := &v1alpha1.Application{Status: v1alpha1.ApplicationStatus{OperationState: &v1alpha1.OperationState{
			Phase: synccommon.OperationFailed, Message: "one or more objects failed to apply (dry run)",
			SyncResult: &v1alpha1.SyncOperationResult{Resources: v1alpha1.ResourceResults{
				{Kind: "ConfigMap", Namespace: "dev-1", Name: "ok", Status: synccommon.ResultCodeSynced, Message: "configured"},
				{Kind: "ConfigMap", Namespace: "dev-1", Name: "faults", Status: synccommon.ResultCodeSyncFailed, Message: msg},
			}},
		}}}
		// As the informer caches it: appcache.App must keep what tells why.
		trimmed, err := appcache.App(app)
		if err != nil {
			t.Fatal(err)
		}
		o := observe.Child(trimmed.(*v1alpha1.Application))
		if kind, rule := rollout.ClassifySyncFailure(o.OperationMessage); kind != want {
			t.Errorf("%q: %s (%s), want %s", o.OperationMessage, kind, rule, want)
		}
		if strings.Contains(o.OperationMessage, "configured") || !strings.Contains(o.OperationMessage, "ConfigMap dev-1/faults: ") || strings.Contains(o.OperationMessage, "\n") {
			t.Errorf("the message names the failed resource only, on one line: %q", o.OperationMessage)
		}
	}
}
