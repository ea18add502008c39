//go:build e2e

// Command floor is BenchmarkFleet's memory peer: a program that imports what the design
// makes the sidecar and the agent import — Argo CD's CMP server API (cmpserver/apiclient,
// which the in-process CMP server implements), Argo CD's Application clientset and
// client-go — and does nothing else. Its resident memory, measured in the same run, is the
// floor below which neither binary can go whatever it does: the packages' initialisation
// and the code pages it touches.
package main

import (
	"os"
	"os/signal"
	"syscall"

	_ "github.com/argoproj/argo-cd/v3/cmpserver/apiclient"
	_ "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned"
	_ "k8s.io/client-go/kubernetes"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
}
