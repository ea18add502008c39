package telemetry

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/client-go/util/workqueue"
)

// TestClientGoQueuesReportOnTheRegistry: a queue made after ClientGo reports its depth and
// adds under the name it was given, as Kubernetes' controllers do.
func TestClientGoQueuesReportOnTheRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	ClientGo(reg)
	q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "test-queue"})
	defer q.ShutDown()
	q.Add("a")
	q.Add("b")
	want := `
# HELP workqueue_adds_total Adds handled by a work queue.
# TYPE workqueue_adds_total counter
workqueue_adds_total{name="test-queue"} 2
# HELP workqueue_depth Current depth of a work queue.
# TYPE workqueue_depth gauge
workqueue_depth{name="test-queue"} 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "workqueue_adds_total", "workqueue_depth"); err != nil {
		t.Fatal(err)
	}
	l := &leaderMetrics{status: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "s"}, []string{"name"})}
	l.NewLeaderMetric().On("lease")
	if v := testutil.ToFloat64(l.status.WithLabelValues("lease")); v != 1 {
		t.Fatalf("leader status %v", v)
	}
}
