package telemetry

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/util/workqueue"
)

// ClientGo registers on reg the metrics client-go's work queues and leader election
// report, under the names Kubernetes' own controllers use (workqueue_*,
// leader_election_master_status), so the dashboards an operator has read them. client-go
// takes a provider once per process, before the first queue or elector is made: call it
// first.
func ClientGo(reg prometheus.Registerer) {
	q := &queueMetrics{
		depth:   prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "workqueue_depth", Help: "Current depth of a work queue."}, []string{"name"}),
		adds:    prometheus.NewCounterVec(prometheus.CounterOpts{Name: "workqueue_adds_total", Help: "Adds handled by a work queue."}, []string{"name"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "workqueue_queue_duration_seconds", Help: "How long an item stays in a work queue before it is taken.", Buckets: prometheus.ExponentialBuckets(1e-6, 10, 10)}, []string{"name"}),
		work:    prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "workqueue_work_duration_seconds", Help: "How long processing an item from a work queue takes.", Buckets: prometheus.ExponentialBuckets(1e-6, 10, 10)}, []string{"name"}),
		unfinished: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "workqueue_unfinished_work_seconds",
			Help: "Seconds of work in progress not yet observed by work_duration; a large value means stuck threads."}, []string{"name"}),
		longest: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "workqueue_longest_running_processor_seconds",
			Help: "Seconds the longest running processor of a work queue has been running."}, []string{"name"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "workqueue_retries_total", Help: "Retries handled by a work queue."}, []string{"name"}),
	}
	l := &leaderMetrics{
		status:   prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "leader_election_master_status", Help: "1 while this process leads the named lease, else 0."}, []string{"name"}),
		slowpath: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "leader_election_slowpath_total", Help: "Lease renewals that took the slow path (a full update)."}, []string{"name"}),
	}
	reg.MustRegister(q.depth, q.adds, q.latency, q.work, q.unfinished, q.longest, q.retries, l.status, l.slowpath)
	workqueue.SetProvider(q)
	leaderelection.SetProvider(l)
}

// queueMetrics is client-go's workqueue.MetricsProvider over Prometheus vectors.
type queueMetrics struct {
	depth, unfinished, longest *prometheus.GaugeVec
	adds, retries              *prometheus.CounterVec
	latency, work              *prometheus.HistogramVec
}

func (q *queueMetrics) NewDepthMetric(name string) workqueue.GaugeMetric {
	return q.depth.WithLabelValues(name)
}

func (q *queueMetrics) NewAddsMetric(name string) workqueue.CounterMetric {
	return q.adds.WithLabelValues(name)
}

func (q *queueMetrics) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return q.latency.WithLabelValues(name)
}

func (q *queueMetrics) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return q.work.WithLabelValues(name)
}

func (q *queueMetrics) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return q.unfinished.WithLabelValues(name)
}

func (q *queueMetrics) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return q.longest.WithLabelValues(name)
}

func (q *queueMetrics) NewRetriesMetric(name string) workqueue.CounterMetric {
	return q.retries.WithLabelValues(name)
}

// leaderMetrics is client-go's leaderelection.MetricsProvider over Prometheus vectors.
type leaderMetrics struct {
	status   *prometheus.GaugeVec
	slowpath *prometheus.CounterVec
}

func (l *leaderMetrics) NewLeaderMetric() leaderelection.LeaderMetric { return l }

func (l *leaderMetrics) On(name string)  { l.status.WithLabelValues(name).Set(1) }
func (l *leaderMetrics) Off(name string) { l.status.WithLabelValues(name).Set(0) }
func (l *leaderMetrics) SlowpathExercised(name string) {
	l.slowpath.WithLabelValues(name).Inc()
}
