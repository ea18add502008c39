package agent

import (
	"context"
	"fmt"
	"strconv"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argoclient "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// SetPhaseGen points the parent at state generation gen, keeping its other plugin env
// entries; it writes with the resourceVersion it read and retries on conflict.
func SetPhaseGen(ctx context.Context, c argoclient.Interface, ns, parent string, gen int64) error {
	apps := c.ArgoprojV1alpha1().Applications(ns)
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		app, err := apps.Get(ctx, parent, metav1.GetOptions{})
		if err != nil {
			return err
		}
		src := app.Spec.Source
		if src == nil || src.Plugin == nil {
			return invalid(fmt.Errorf("parent %s/%s has no plugin source", ns, parent), "set spec.source.plugin.name: "+contract.PluginName)
		}
		value := strconv.FormatInt(gen, 10)
		if containsEnv(src.Plugin.Env, value) {
			return nil // already there: no write
		}
		setEnv(src.Plugin, value)
		_, err = apps.Update(ctx, app, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("set %s of %s/%s to %d: %w", contract.EnvPhaseGen, ns, parent, gen, err)
	}
	return nil
}

func containsEnv(env v1alpha1.Env, value string) bool {
	for _, e := range env {
		if e.Name == contract.EnvPhaseGen {
			return e.Value == value
		}
	}
	return false
}

func setEnv(p *v1alpha1.ApplicationSourcePlugin, value string) {
	for _, e := range p.Env {
		if e.Name == contract.EnvPhaseGen {
			e.Value = value
			return
		}
	}
	p.Env = append(p.Env, &v1alpha1.EnvEntry{Name: contract.EnvPhaseGen, Value: value})
}
