package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/control"
)

// runFleet is stop-all (every rollout the agent of the namespace drives pauses, for
// --reason) and resume-all (the fleet-wide stop is lifted).
func runFleet(ctx context.Context, name string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cmp-phase "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var k kubeFlags
	var s steerFlags
	k.BindFlags(fs)
	s.BindFlags(fs)
	cm := fs.String("fleet-configmap", contract.FleetConfigMap, "the agent's --fleet-configmap")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: cmp-phase %s --reason <why> [--by <who>] [kubectl flags]\n", name)
		fs.PrintDefaults()
	}
	if err := parseInterleaved(fs, args); err != nil {
		return 2
	}
	if fs.NArg() != 0 || s.until != "" || s.force || (name == "stop-all" && strings.TrimSpace(s.reason) == "") {
		fs.Usage()
		return 2
	}
	kc, ns, user, err := k.connect()
	if err == nil {
		f := control.Fleet{ConfigMaps: kc.CoreV1(), Namespace: ns, Name: *cm, By: s.who(user)}
		if name == "stop-all" {
			err = f.StopAll(ctx, s.reason)
		} else {
			err = f.ResumeAll(ctx)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "cmp-phase:", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s recorded in %s/%s; the agent pauses or releases every rollout it drives\n", name, ns, *cm)
	return 0
}
