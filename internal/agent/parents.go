package agent

import (
	"sync"
)

// parentIndex maps a parent Application to the rollouts whose plans it renders, so a change
// of the parent (its sync, its PHASE_GEN) wakes them.
type parentIndex struct {
	mu sync.Mutex
	m  map[string]map[string]bool // parent → rollouts
}

func (p *parentIndex) set(parent, rollout string) {
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

func (p *parentIndex) of(parent string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for r := range p.m[parent] {
		out = append(out, r)
	}
	return out
}
