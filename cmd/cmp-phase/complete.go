package main

import (
	"slices"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// completeRollout completes a command's first argument with the rollouts of the namespace
// (-n, kubectl's flags): their state ConfigMaps. Nothing when the API server cannot say.
func (a *app) completeRollout(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveDefault
	}
	cn, err := a.connect()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	cms, err := cn.kc.CoreV1().ConfigMaps(cn.namespace).List(a.ctx, metav1.ListOptions{LabelSelector: contract.StateSelector})
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, cm := range cms.Items {
		if name, ok := contract.RolloutOfState(cm.Name); ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, cobra.ShellCompDirectiveNoFileComp
}
