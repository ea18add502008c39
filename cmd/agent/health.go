package main

import (
	"net/http"
	"runtime"
	"runtime/debug"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cmp-phase/cmp-phase/internal/version"
)

// readiness is what /readyz answers: ready once leader election has settled — this process
// leads and its caches have synced, or another leader is known and this one stands by — or,
// without election, once the caches have synced.
type readiness struct {
	election   bool
	synced     func() bool // the agent's caches synced (agent.Agent.Synced)
	leading    atomic.Bool
	leaderSeen atomic.Bool // a leader other than this process is known
}

// why is "" when ready, else what it waits for.
func (r *readiness) why() string {
	switch {
	case !r.election || r.leading.Load():
		if r.synced == nil || !r.synced() {
			return "caches not synced yet"
		}
		return ""
	case r.leaderSeen.Load():
		return ""
	default:
		return "leader election not settled yet"
	}
}

// handle serves /healthz (the process answers) and /readyz on mux.
func (r *readiness) handle(mux *http.ServeMux) {
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if why := r.why(); why != "" {
			http.Error(w, why, http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
}

// buildInfo is cmp_phase_build_info{version,revision,goversion} = 1.
func buildInfo() prometheus.Collector {
	rev := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				rev = s.Value
			}
		}
	}
	v := versionOf()
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "cmp_phase_build_info", Help: "1, labelled with the binary's version, VCS revision and Go version.",
		ConstLabels: prometheus.Labels{"version": v, "revision": rev, "goversion": runtime.Version()}})
	g.Set(1)
	return g
}

// versionOf is the version the agent logs at start.
func versionOf() string {
	if v := version.Current(); v != "" {
		return v
	}
	return "devel"
}
