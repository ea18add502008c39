package rerender

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argoclient "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/cmp-phase/cmp-phase/internal/agent/failure"
	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// PhaseGen is the generation a parent's PHASE_GEN names, 0 when unset or unreadable.
func PhaseGen(parent *v1alpha1.Application) int64 {
	if src := parent.Spec.Source; src != nil && src.Plugin != nil {
		for _, e := range src.Plugin.Env {
			if e.Name == contract.EnvPhaseGen {
				return ParseGeneration(e.Value)
			}
		}
	}
	return 0
}

// ParseGeneration reads a generation as PHASE_GEN and the plan's annotation spell it, 0
// when unset, unreadable or negative.
func ParseGeneration(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// SetPhaseGen points the parent at state generation gen, keeping its other plugin env
// entries; it writes with the resourceVersion it read and retries on conflict.
func SetPhaseGen(ctx context.Context, c argoclient.Interface, ns, parent string, gen int64) error {
	_, err := WritePhaseGen(ctx, c, ns, parent, gen)
	return err
}

// WritePhaseGen is SetPhaseGen, returning the resourceVersion it wrote ("": none). A
// parent without a plugin source is an invalid input (failure.InvalidInput).
func WritePhaseGen(ctx context.Context, c argoclient.Interface, ns, parent string, gen int64) (string, error) {
	apps := c.ArgoprojV1alpha1().Applications(ns)
	wrote := ""
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		app, err := apps.Get(ctx, parent, metav1.GetOptions{})
		if err != nil {
			return err
		}
		src := app.Spec.Source
		if src == nil || src.Plugin == nil {
			return failure.InvalidInput(fmt.Errorf("parent %s/%s has no plugin source", ns, parent), "set spec.source.plugin.name: "+contract.PluginName)
		}
		value := strconv.FormatInt(gen, 10)
		if containsEnv(src.Plugin.Env, value) {
			return nil // already there: no write
		}
		setEnv(src.Plugin, value)
		updated, err := apps.Update(ctx, app, metav1.UpdateOptions{})
		if err == nil {
			wrote = updated.ResourceVersion
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("set %s of %s/%s to %d: %w", contract.EnvPhaseGen, ns, parent, gen, err)
	}
	return wrote, nil
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

// PhaseGenPatch is the JSON patch that sets PHASE_GEN on the cached parent, on the
// condition that its plugin env is still the cached one (nil: already set); ok is false
// when the cache holds no plugin env to test. The cached object is not changed.
func PhaseGenPatch(cached *v1alpha1.Application, gen int64) (patch []byte, ok bool) {
	if cached == nil || cached.Spec.Source == nil || cached.Spec.Source.Plugin == nil || len(cached.Spec.Source.Plugin.Env) == 0 {
		return nil, false
	}
	value := strconv.FormatInt(gen, 10)
	if containsEnv(cached.Spec.Source.Plugin.Env, value) {
		return nil, true
	}
	plugin := &v1alpha1.ApplicationSourcePlugin{}
	for _, e := range cached.Spec.Source.Plugin.Env {
		plugin.Env = append(plugin.Env, &v1alpha1.EnvEntry{Name: e.Name, Value: e.Value})
	}
	setEnv(plugin, value)
	const path = "/spec/source/plugin/env"
	b, err := json.Marshal([]map[string]any{
		{"op": "test", "path": path, "value": cached.Spec.Source.Plugin.Env},
		{"op": "replace", "path": path, "value": plugin.Env},
	})
	if err != nil {
		return nil, false
	}
	return b, true
}
