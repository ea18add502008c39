package render

import "fmt"

// ChildAt renders child key at revision rev (body: that revision's spec), in phase, as
// Render renders it once the state assigns it there, whatever the state assigns it now:
// what the agent reads a per-cluster job hook's AppProject and destination from, before
// the child is admitted (a pre-hook) as after.
func (r *Renderer) ChildAt(in Input, rev string, body []byte, key, phase string) ([]byte, error) {
	if err := checkState(in); err != nil {
		return nil, err
	}
	if in.State == nil {
		return nil, fmt.Errorf("render child %s: no state", key)
	}
	out := map[string][]byte{}
	if err := r.renderRevision(out, in, rev, body, []assigned{{key: key, rev: rev, phase: phase}}); err != nil {
		return nil, err
	}
	doc, ok := out[key]
	if !ok {
		return nil, fmt.Errorf("revision %s renders no child %s", rev, key)
	}
	return doc, nil
}
