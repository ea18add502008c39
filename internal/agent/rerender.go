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
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/util/retry"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/failure"
)

// SetPhaseGen points the parent at state generation gen, keeping its other plugin env
// entries; it writes with the resourceVersion it read and retries on conflict.
func SetPhaseGen(ctx context.Context, c argoclient.Interface, ns, parent string, gen int64) error {
	_, err := setPhaseGenRead(ctx, c, ns, parent, gen)
	return err
}

// setPhaseGenRead is SetPhaseGen, returning the resourceVersion it wrote ("": none).
func setPhaseGenRead(ctx context.Context, c argoclient.Interface, ns, parent string, gen int64) (string, error) {
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

// namePhaseGen is the protocol's SetPhaseGen for a parent the cache holds as cached: it
// sets PHASE_GEN to gen and returns the memory of it and asked, unless this agent set it
// to gen already and the cache holds a version of the parent older than that write (its
// own write is not in the cache yet: writing again would only meet a failed test and a
// read), when it returns the memory and the time asked as they were. Such a pass decides
// from what it would have decided from had it written (a write changes no cached object),
// Enact included; it assumes what the protocol assumes of every pass, that nothing but
// this agent sets PHASE_GEN back within the cache's lag (a git-managed parent ignores the
// plugin env, see docs/concepts.md). Versions are compared as Kubernetes allows
// (resourceversion.CompareResourceVersion); one that does not compare, another object
// (a parent recreated, or another one named), and a wait of --confirm-after (a write lost
// to an etcd restore, whose versions went back) are written again.
func (a *Agent) namePhaseGen(ctx context.Context, p *pass, parent string, cached *v1alpha1.Application, gen int64, mem named, asked time.Time, logAttrs ...any) (named, time.Time, error) {
	if cached != nil && mem.set == gen && !mem.asked.IsZero() && cached.UID == mem.uid &&
		asked.Before(mem.asked.Add(a.opts.ConfirmAfter)) && older(cached.ResourceVersion, mem.wrote) {
		return mem, mem.asked, nil
	}
	wrote, err := a.setPhaseGen(ctx, p, parent, cached, gen, logAttrs...)
	if err != nil {
		return mem, asked, err
	}
	mem.set, mem.before, mem.wrote, mem.uid = gen, -1, wrote, ""
	if cached != nil {
		mem.before, mem.uid = PhaseGen(cached), cached.UID
	}
	return mem, asked, nil
}

// older reports whether resourceVersion rv is older than wrote (false when either does not
// compare).
func older(rv, wrote string) bool {
	c, err := resourceversion.CompareResourceVersion(rv, wrote)
	return err == nil && c < 0
}

// setPhaseGen is SetPhaseGen from the cached parent: one JSON patch that tests the plugin
// env is still what the cache holds and replaces it (no read, and the parent's status
// writes, which change its resourceVersion all the time, cannot make it conflict);
// SetPhaseGen's read and retry when the test fails or the cache holds no env to test.
// It logs the request (with logAttrs), runs the fault hook after it and returns the
// resourceVersion it wrote ("": none, it was set already).
func (a *Agent) setPhaseGen(ctx context.Context, p *pass, parent string, cached *v1alpha1.Application, gen int64, logAttrs ...any) (string, error) {
	var (
		wrote string
		err   error
	)
	switch patch, ok := phaseGenPatch(cached, gen); {
	case ok && patch == nil: // already there: no write
	case ok:
		var patched *v1alpha1.Application
		if patched, err = a.argo.ArgoprojV1alpha1().Applications(a.opts.Namespace).Patch(ctx, parent, types.JSONPatchType, patch, metav1.PatchOptions{}); err == nil {
			wrote = patched.ResourceVersion
		} else {
			wrote, err = setPhaseGenRead(ctx, a.argo, a.opts.Namespace, parent, gen) // the env changed meanwhile (its error names the parent)
		}
	default:
		wrote, err = setPhaseGenRead(ctx, a.argo, a.opts.Namespace, parent, gen)
	}
	if err != nil {
		return "", err
	}
	p.log.Info("re-render requested", append([]any{"parent", parent, "generation", gen}, logAttrs...)...)
	if a.faults.AfterRerender != nil {
		a.faults.AfterRerender(p.plan.Rollout, gen)
	}
	return wrote, nil
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
