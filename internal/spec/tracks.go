package spec

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// NoTrack names the track of members whose tracks key gives "" (e.g. no region label).
const NoTrack = "(none)"

// Tracks is a phase's extension `tracks`: an expression (the names of a target's expr, as
// order and spread) giving each member its track. From that phase on, the rollout splits
// into one track per distinct value, each walking the following phases on its own.
type Tracks struct {
	Src string `json:"tracks,omitempty"`

	key *targets.KeyProgram
}

// IsZero reports whether the phase splits nothing.
func (t Tracks) IsZero() bool { return t.Src == "" }

// Compile compiles the expression through the cache (a nil Cache compiles every time).
func (t *Tracks) Compile(c *targets.Cache) error {
	if t.Src == "" {
		return nil
	}
	k, err := c.CompileKey(t.Src)
	if err != nil {
		return fmt.Errorf("tracks: %w", err)
	}
	t.key = k
	return nil
}

// Of is the track of s: the expression's value, NoTrack when it gives "". An uncompiled
// Tracks is an error, never a silent single track.
func (t Tracks) Of(s targets.Subject) (string, error) {
	if t.key == nil {
		return "", fmt.Errorf("tracks %q is not compiled", t.Src)
	}
	k, err := t.key.Eval(s)
	if err != nil {
		return "", fmt.Errorf("tracks: %w", err)
	}
	if v := k.String(); v != "" {
		return v, nil
	}
	return NoTrack, nil
}

// tracks reads a phase's extension tracks, compiled once through exprs.
func (d *dec) tracks(f map[string]*yaml.Node, path string, exprs *targets.Cache) Tracks {
	t := Tracks{Src: d.str(f["tracks"], path+".tracks")}
	if f["tracks"] != nil && strings.TrimSpace(t.Src) == "" {
		d.fail(f["tracks"], path+".tracks", "write an expression such as labels.region, or remove the field", "is empty")
		return Tracks{}
	}
	if err := t.Compile(exprs); err != nil {
		_, msg, _ := strings.Cut(err.Error(), ": ")
		d.fail(f["tracks"], path+".tracks", `give it a string or a number, e.g. labels.region`, "%s", msg)
	}
	return t
}

// oneSplit refuses a second phase with tracks: the rollout splits once, and every later
// phase is walked per track already.
func (d *dec) oneSplit(n *yaml.Node, path string, p Phase, split *string) {
	if p.Tracks.IsZero() {
		return
	}
	if *split != "" {
		d.fail(n, path+".tracks", "keep tracks on the first phase that splits; the phases after it run per track already", "phase %s splits again after phase %s", p.Name, *split)
		return
	}
	*split = p.Name
}

// TrackSplit is the index of the first phase with tracks, -1 when none has.
func TrackSplit(phases []Phase) int {
	for i, p := range phases {
		if !p.Tracks.IsZero() {
			return i
		}
	}
	return -1
}
