package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"

	argoclient "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/tools/record"

	"github.com/cmp-phase/cmp-phase/internal/agent"
	"github.com/cmp-phase/cmp-phase/internal/telemetry"
)

var errLostLease = errors.New("lost the leader Lease (the process exits so that a fresh start stands for election again)")

// start connects, then runs the agent: under leader election, or at once without it.
func start(ctx context.Context, o options, log *slog.Logger) error {
	cfg, err := o.conn.config()
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("kube client: %w", err)
	}
	argo, err := argoclient.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("argo client: %w", err)
	}
	// client-go's defaults drop a source's Events on one object after a burst of 25 (then
	// one per 5 minutes) and fold the 11th similar one into an aggregate: a rollout reports
	// every transition on its parent, so allow a much larger burst and keep them apart.
	broadcaster := record.NewBroadcaster(record.WithCorrelatorOptions(record.CorrelatorOptions{
		BurstSize: 500, QPS: 1, MaxEvents: 200,
	}))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: kube.CoreV1().Events(o.agent.Namespace)})
	defer broadcaster.Shutdown()
	recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "cmp-phase-agent"})
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), telemetry.BuildInfo())
	telemetry.ClientGo(reg) // before agent.New makes its queue and lead its elector
	o.agent.Metrics = reg
	a := agent.New(kube, argo, o.agent, log, recorder, faults(log))
	ready := &readiness{election: o.election.enabled, synced: a.Synced}
	if o.obs.metricsAddr != "" {
		stop, err := telemetry.Serve(o.obs.metricsAddr, reg, ready.why, o.obs.profiling, log)
		if err != nil {
			return err
		}
		defer stop()
	}
	// The endpoint reads and edits ConfigMaps only: every replica serves it, leader or not.
	stopExt, err := o.ext.serve(o.agent.Namespace, kube, argo, log)
	if err != nil {
		return err
	}
	defer stopExt()
	if !o.election.enabled {
		return a.Run(ctx)
	}
	return lead(ctx, o, kube, recorder, ready, log, a.Run)
}

// lead runs work while this process holds the Lease. Losing it ends the process (with an
// error) rather than risking two writers; a cancelled ctx releases the Lease at once.
func lead(ctx context.Context, o options, kube kubernetes.Interface, rec record.EventRecorder, ready *readiness, log *slog.Logger, work func(context.Context) error) error {
	id := o.election.identity
	if id == "" {
		host, _ := os.Hostname()
		id = host + "_" + utilrand.String(8)
	}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Name: o.election.lease, Namespace: o.agent.Namespace},
		Client:     kube.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id, EventRecorder: rec},
	}
	var workErr error
	var led atomic.Bool
	done := make(chan struct{})
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: lock, ReleaseOnCancel: true, Name: o.election.lease,
		LeaseDuration: o.election.leaseDuration, RenewDeadline: o.election.renewDeadline, RetryPeriod: o.election.retryPeriod,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				led.Store(true)
				ready.leading.Store(true)
				defer close(done)
				log.Info("leading", "identity", id, "lease", o.election.lease)
				workErr = work(ctx)
			},
			OnStoppedLeading: func() {
				ready.leading.Store(false)
				log.Info("not leading", "identity", id)
			},
			OnNewLeader: func(leader string) {
				if leader != id {
					ready.leaderSeen.Store(true)
					log.Info("standing by", "leader", leader)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("leader election: %w", err)
	}
	log.Info("standing for election", "identity", id, "lease", o.election.lease)
	le.Run(ctx) // returns when ctx ends or the Lease is lost; the work's ctx ends with it
	if !led.Load() {
		return nil // stopped before ever leading
	}
	<-done
	if workErr != nil {
		return workErr
	}
	if ctx.Err() == nil {
		return errLostLease
	}
	return nil
}
