package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/steer"
)

// newFleet is stop-all (every rollout the agent of the namespace drives pauses, for
// --reason) and resume-all (the fleet-wide stop is lifted).
func newFleet(a *app, name string) *cobra.Command {
	s := &steerFlags{}
	fleetCM := contract.FleetConfigMap
	c := &cobra.Command{
		Use:     name + " --reason <why>",
		GroupID: "steer",
		Args:    exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, args []string) error {
			if name == "stop-all" && strings.TrimSpace(s.reason) == "" {
				return usageError("stop-all needs --reason: why, shown on every rollout it pauses (fix: add --reason \"<why>\")")
			}
			cn, err := a.connect()
			if err != nil {
				return failed(err)
			}
			f := steer.Fleet{ConfigMaps: cn.kc.CoreV1(), Namespace: cn.namespace, Name: fleetCM, By: s.who(cn.user)}
			if name == "stop-all" {
				err = f.StopAll(a.ctx, s.reason)
			} else {
				err = f.ResumeAll(a.ctx)
			}
			if err != nil {
				return failed(err)
			}
			fmt.Fprintf(a.out, "%s recorded in %s/%s; the agent pauses or releases every rollout it drives\n", name, cn.namespace, fleetCM)
			return nil
		},
	}
	if name == "stop-all" {
		c.Short = "Pause every rollout the namespace's agent drives (an incident)"
		c.Example = `  cmp-phase stop-all --reason "incident 4711"`
	} else {
		c.Short = "Lift a stop-all: the rollouts go on"
		c.Example = `  cmp-phase resume-all --reason "incident 4711 resolved"`
	}
	c.Long = c.Short + `.

The stop is recorded in the agent's fleet ConfigMap (--fleet-configmap, the agent's flag of
the same name); every rollout shows it in ` + "`cmp-phase status`" + `.

` + exitCodesHelp
	c.Flags().StringVar(&s.reason, "reason", "", "why (required for stop-all; shown on every rollout)")
	c.Flags().StringVar(&s.by, "by", "", "who (default: the kubeconfig context's user, else $USER)")
	c.Flags().StringVar(&fleetCM, "fleet-configmap", contract.FleetConfigMap, "the agent's --fleet-configmap")
	return a.withKube(c)
}
