package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/cmp-phase/cmp-phase/internal/version"
)

// Version is the binary's version, "devel" for a development build.
func Version() string {
	if v := version.Current(); v != "" {
		return v
	}
	return "devel"
}

// Revision is the VCS revision the binary was built from, "unknown" when not stamped.
func Revision() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				return s.Value
			}
		}
	}
	return "unknown"
}

// BuildInfo is cmp_phase_build_info{version,revision,goversion} = 1.
func BuildInfo() prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "cmp_phase_build_info", Help: "1, labelled with the binary's version, VCS revision and Go version.",
		ConstLabels: prometheus.Labels{"version": Version(), "revision": Revision(), "goversion": runtime.Version()}})
	g.Set(1)
	return g
}

// Serve serves reg on addr at /metrics, /healthz (the process answers), /readyz (ready:
// "" when ready, else what it waits for; nil: always ready) and /debug/pprof when
// profiling, until the returned stop is called.
func Serve(addr string, reg *prometheus.Registry, ready func() string, profiling bool, log *slog.Logger) (func(), error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: Mux(reg, ready, profiling), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("metrics server stopped", "error", err)
		}
	}()
	log.Info("serving metrics", "addr", l.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}

// Mux is Serve's handler.
func Mux(reg *prometheus.Registry, ready func() string, profiling bool) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if ready != nil {
			if why := ready(); why != "" {
				http.Error(w, why, http.StatusServiceUnavailable)
				return
			}
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	if profiling {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	}
	return mux
}
