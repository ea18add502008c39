package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/steer"
)

// runFleet is stop-all (every rollout the agent of the namespace drives pauses, for
// --reason) and resume-all (the fleet-wide stop is lifted).
func runFleet(ctx context.Context, name string, args []string, stdout, stderr io.Writer) int {
	var k kubeFlags
	var s steerFlags
	fs := steerFlagSet(name, "--reason <why> [--by <who>] [--fleet-configmap <name>] [kubectl flags]", stderr, &k, &s)
	cm := fs.String("fleet-configmap", contract.FleetConfigMap, "the agent's --fleet-configmap")
	if err := parseInterleaved(fs, args); err != nil {
		return 2
	}
	if fs.NArg() != 0 || s.until != "" || s.force || (name == "stop-all" && strings.TrimSpace(s.reason) == "") {
		fs.Usage()
		return 2
	}
	kc, ns, user, err := k.connect()
	if err == nil {
		f := steer.Fleet{ConfigMaps: kc.CoreV1(), Namespace: ns, Name: *cm, By: s.who(user)}
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
