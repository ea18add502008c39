package agent

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

func fleetCM(data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: contract.FleetConfigMap, Namespace: testNS}, Data: data}
}

// TestTheFleetConfigMapStopsAndWakesEveryRollout: the fleet ConfigMap's stop is read from
// the cache (an unknown key logged, not obeyed), and a change of it wakes every rollout.
func TestTheFleetConfigMapStopsAndWakesEveryRollout(t *testing.T) {
	f := newFakeAgent(t, nil, planOf("web", "web-parent"), planOf("api", "api-parent"))
	if stop := f.fleetStop(); stop != nil {
		t.Fatalf("no fleet ConfigMap, yet a stop: %+v", stop)
	}
	cm := fleetCM(map[string]string{contract.StopAllKey: "incident 4711", contract.ByKey: "sre", "stop-al": "typo"})
	f.caches = cachesOf(t, cm, planOf("web", "web-parent"), planOf("api", "api-parent"))
	if stop := f.fleetStop(); stop == nil || stop.Reason != "incident 4711" || stop.By != "sre" {
		t.Fatalf("stop %+v", stop)
	}
	if !strings.Contains(f.logs.String(), "stop-al") {
		t.Fatalf("the unknown key is not logged: %s", f.logs)
	}
	f.route(cm)
	if f.queue.Len() != 2 {
		t.Fatalf("the fleet ConfigMap woke %d rollouts, want both", f.queue.Len())
	}
}
