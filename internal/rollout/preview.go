package rollout

import (
	"slices"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// PreviewNext returns the state as it will be once the rollout admits its next batch — the
// current phase's members it has yet to admit, or, when it has admitted all it will, the
// next phase's first batch (a manual gate previews what approving it admits); once the
// rollout split into tracks, each track's next batch; when the last shared phase has
// nothing left to admit, every track's first batch (they start together) — for a preview
// render and the manifest warm. phases are the spec's (a track's copy of a phase goes by its name). st
// itself is never changed; with nothing to admit it is returned as is.
func PreviewNext(st *state.State, phases []spec.Phase) *state.State {
	if st == nil || !st.Rollout.Active() || st.Rollout.Status != StatusProgressing {
		return st
	}
	byIndex, ok := phasesByIndex(st.Rollout, phases)
	if !ok {
		return st
	}
	out := st.Clone()
	r, admitted := out.Rollout, false
	if len(r.Tracks) == 0 || r.Phase < r.Split() {
		// the shared phases first; with none left to admit, every track starts at once
		admitted = previewFrom(r, byIndex, previewStart{Phase: r.Phase, End: r.Split()})
	}
	if !admitted {
		for _, t := range r.Tracks {
			if t.Status == StatusProgressing {
				admitted = previewFrom(r, byIndex, previewStart{Phase: t.Phase, Track: t.Name, End: len(r.Phases)}) || admitted
			}
		}
	}
	if !admitted {
		return st
	}
	return out
}

// previewStart is where a preview looks for the next batch: phase indexes Phase up to End
// (excluded), within track Track ("": the shared phases before a split, or every phase of
// a rollout without tracks).
type previewStart struct {
	Phase, End int
	Track      string
}

// previewFrom admits, in r, the next batch of the first phase from s on that has one, and
// reports whether it admitted anyone.
func previewFrom(r *state.Rollout, phases []spec.Phase, s previewStart) bool {
	for i := s.Phase; i < s.End; i++ {
		ph := &r.Phases[i]
		if s.Track != "" && ph.Track != s.Track {
			continue
		}
		b := batchOf(r, ph, phases[i])
		b.Approved = true // a manual gate previews what approving it admits
		// InFlight stays 0: a step previews its next batch as if the one in flight had settled
		if next := nextAdmission(b).Next; len(next) > 0 {
			ph.Admitted = append(ph.Admitted, next...)
			slices.Sort(ph.Admitted)
			return true
		}
	}
	return false
}

// phasesByIndex are the spec phases of r's phases, index for index (a track's copy by its
// phase's name); false when one is not in the spec (a plan of another revision).
func phasesByIndex(r *state.Rollout, phases []spec.Phase) ([]spec.Phase, bool) {
	if len(phases) == len(r.Phases) && len(r.Tracks) == 0 {
		return phases, true
	}
	out := make([]spec.Phase, len(r.Phases))
	for i, ph := range r.Phases {
		k := slices.IndexFunc(phases, func(sp spec.Phase) bool { return sp.Name == ph.Name })
		if k < 0 {
			return nil, false
		}
		out[i] = phases[k]
	}
	return out, true
}
