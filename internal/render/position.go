package render

import (
	"bytes"
	"maps"
	"strconv"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// PositionParam is the template parameter holding a child's rollout position: flat keys
// cmpPhase.phase, cmpPhase.phaseIndex, cmpPhase.phaseCount and cmpPhase.rank in fasttemplate,
// a map under .cmpPhase in Go templates. A child that has no known position gets "" and 0s.
const PositionParam = "cmpPhase"

// positionWord is how a revision's spec that uses the position parameters is told apart:
// any other pays nothing for them.
var positionWord = []byte(PositionParam)

// usesPosition reports whether a revision's body names the position parameters.
func usesPosition(body []byte) bool { return bytes.Contains(body, positionWord) }

// withPosition is a child's parameters with its position added (a copy: the parameters are
// shared by every render of the revision).
func withPosition(values map[string]any, pos state.Position, goTemplate bool) map[string]any {
	out := make(map[string]any, len(values)+4)
	maps.Copy(out, values)
	if goTemplate {
		out[PositionParam] = map[string]any{"phase": pos.Phase, "phaseIndex": pos.Index, "phaseCount": pos.Count, "rank": pos.Rank}
		return out
	}
	out[PositionParam+".phase"] = pos.Phase
	out[PositionParam+".phaseIndex"] = strconv.Itoa(pos.Index)
	out[PositionParam+".phaseCount"] = strconv.Itoa(pos.Count)
	out[PositionParam+".rank"] = strconv.Itoa(pos.Rank)
	return out
}

// positionAnnotation is the value of contract.AnnotationPosition: "" when not known, else
// phase=<name>,index=<i>,count=<n>,rank=<r>.
func positionAnnotation(pos state.Position, ok bool) string {
	if !ok {
		return ""
	}
	return "phase=" + pos.Phase + ",index=" + strconv.Itoa(pos.Index) + ",count=" + strconv.Itoa(pos.Count) + ",rank=" + strconv.Itoa(pos.Rank)
}

// values are the parameters a child of c renders with at pos.
func (c *compiledRev) values(p Params, pos state.Position) map[string]any {
	if !c.usesPosition {
		return p.Values
	}
	return withPosition(p.Values, pos, c.rev.GoTemplate)
}

// positions is the position lookup of the input's state (none without one), made once per
// render.
func (in Input) positions() func(child, rev string) (state.Position, bool) {
	if in.pos != nil {
		return in.pos
	}
	if in.State == nil {
		return func(string, string) (state.Position, bool) { return state.Position{}, false }
	}
	return in.State.Positions()
}
