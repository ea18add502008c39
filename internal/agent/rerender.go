package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argoclient "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
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

// namePhaseGen is the protocol's SetPhaseGen for a parent the cache holds as cached: it
// sets PHASE_GEN to gen and returns the memory of it and asked, unless this agent set it
// to gen from the very parent version the cache still holds — its own write is not in the
// cache yet, and writing again would only meet a failed test and a read — when it returns
// the memory and the time asked as they were. Such a pass decides from the very object the
// writing pass decided from, so it decides the same (Enact included); it assumes what the
// protocol assumes of every pass, that nothing but this agent sets PHASE_GEN back within the
// cache's lag (a git-managed parent ignores the plugin env, see the README).
func (a *Agent) namePhaseGen(ctx context.Context, p *pass, parent string, cached *v1alpha1.Application, gen int64, mem named, asked time.Time, logAttrs ...any) (named, time.Time, error) {
	if cached != nil && mem.set == gen && mem.from != "" && mem.from == cached.ResourceVersion && !mem.asked.IsZero() {
		return mem, mem.asked, nil
	}
	if err := a.setPhaseGen(ctx, p, parent, cached, gen, logAttrs...); err != nil {
		return mem, asked, err
	}
	mem.set, mem.before, mem.from = gen, -1, ""
	if cached != nil {
		mem.before, mem.from = PhaseGen(cached), cached.ResourceVersion
	}
	return mem, asked, nil
}

// setPhaseGen is SetPhaseGen from the cached parent: one JSON patch that tests the plugin
// env is still what the cache holds and replaces it (no read, and the parent's status
// writes, which change its resourceVersion all the time, cannot make it conflict);
// SetPhaseGen's read and retry when the test fails or the cache holds no env to test.
// It logs the request (with logAttrs) and runs the fault hook after it.
func (a *Agent) setPhaseGen(ctx context.Context, p *pass, parent string, cached *v1alpha1.Application, gen int64, logAttrs ...any) error {
	var err error
	switch patch, ok := phaseGenPatch(cached, gen); {
	case ok && patch == nil: // already there: no write
	case ok:
		if _, err = a.argo.ArgoprojV1alpha1().Applications(a.opts.Namespace).Patch(ctx, parent, types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
			err = SetPhaseGen(ctx, a.argo, a.opts.Namespace, parent, gen) // the env changed meanwhile (its error names the parent)
		}
	default:
		err = SetPhaseGen(ctx, a.argo, a.opts.Namespace, parent, gen)
	}
	if err != nil {
		return err
	}
	p.log.Info("re-render requested", append([]any{"parent", parent, "generation", gen}, logAttrs...)...)
	if a.faults.AfterRerender != nil {
		a.faults.AfterRerender(p.plan.Rollout, gen)
	}
	return nil
}

// phaseGenPatch is the JSON patch that sets PHASE_GEN on the cached parent, on the
// condition that its plugin env is still the cached one (nil: already set); ok is false
// when the cache holds no plugin env to test. The cached object is not changed.
func phaseGenPatch(cached *v1alpha1.Application, gen int64) (patch []byte, ok bool) {
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
