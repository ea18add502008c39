package cmpserver

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the sidecar's Prometheus metrics (served by cmp-phase serve --metrics-addr).
type metrics struct {
	render   *prometheus.HistogramVec
	received prometheus.Histogram
	specs    *prometheus.CounterVec
	state    prometheus.Histogram
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		render: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "cmp_phase_render_seconds",
			Help:    "One render over the plugin socket, from the first byte received to the manifests, by result (ok, or the gRPC code of the refusal).",
			Buckets: prometheus.ExponentialBuckets(0.005, 2, 14)}, []string{"result"}),
		received: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "cmp_phase_render_received_seconds",
			Help:    "The part of a render spent receiving and unpacking the repository the repo-server streams.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 14)}),
		specs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cmp_phase_spec_cache_total",
			Help: "Spec loads, by whether the parse of identical content was reused (hit) or made (miss)."}, []string{"result"}),
		state: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "cmp_phase_render_state_seconds",
			Help:    "The part of a render spent reading the rollout's state: the cached decode, or decoding a new version of the ConfigMap.",
			Buckets: prometheus.ExponentialBuckets(0.00001, 4, 10)}),
	}
	if reg != nil {
		reg.MustRegister(m.render, m.received, m.specs, m.state)
	}
	return m
}

func (m *metrics) rendered(result string, took, received time.Duration) {
	if m == nil {
		return
	}
	m.render.WithLabelValues(result).Observe(took.Seconds())
	m.received.Observe(received.Seconds())
}

func (m *metrics) stateRead(took time.Duration) {
	if m == nil {
		return
	}
	m.state.Observe(took.Seconds())
}

func (m *metrics) spec(hit bool) {
	if m == nil {
		return
	}
	result := "miss"
	if hit {
		result = "hit"
	}
	m.specs.WithLabelValues(result).Inc()
}
