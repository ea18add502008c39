package appcache

import (
	"sync"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// An Argo CD namespace of 10,000 Applications of another tool's cost the agent ≈ 110 MiB
// of heap for objects it never reads; cached as their names, ≈ 1 KiB each.

// NameOnly marks a cached Application of which only the name was kept.
const NameOnly = "cmp-phase.io/agent-cached-name-only"

// IsNameOnly reports whether the cache kept only app's name: a reader that needs the
// whole parent reads it from the API server.
func IsNameOnly(app *v1alpha1.Application) bool { return app.Annotations[NameOnly] != "" }

// Parents maps a parent Application to the rollouts whose plans it renders, so a change
// of the parent (its sync, its PHASE_GEN) wakes them, and the parent is cached whole.
type Parents struct {
	mu sync.Mutex
	m  map[string]map[string]bool // parent → rollouts
}

// Set notes that rollout's plan names parent.
func (p *Parents) Set(parent, rollout string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]map[string]bool{}
	}
	if p.m[parent] == nil {
		p.m[parent] = map[string]bool{}
	}
	p.m[parent][rollout] = true
}

// Has reports whether a plan names parent.
func (p *Parents) Has(parent string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.m[parent]) > 0
}

// Of are the rollouts whose plans name parent.
func (p *Parents) Of(parent string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for r := range p.m[parent] {
		out = append(out, r)
	}
	return out
}

// Transform is the Applications informer's transform: App for a child (rollout label) or
// a parent p knows, the name only for any other Application.
func (p *Parents) Transform(obj any) (any, error) {
	app, ok := obj.(*v1alpha1.Application)
	if !ok || app.Labels[contract.LabelRollout] != "" || p.Has(app.Name) {
		return App(obj)
	}
	return &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace, UID: app.UID,
		ResourceVersion: app.ResourceVersion, Generation: app.Generation, DeletionTimestamp: app.DeletionTimestamp,
		Annotations: map[string]string{NameOnly: "true"}}}, nil
}
