package rollout

import (
	"encoding/json"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// openings memoises the next opening of each distinct window set within one pass of Step:
// every held child of an AppProject shares its project's windows, and a search may walk
// up to openingSteps changes.
type openings map[string]opening

type opening struct {
	now, at time.Time
}

// nextOpening is NextOpening, searched once per distinct window set and time in this pass
// (a nil cache, an Observed not made by Step, searches every time).
func (o Observed) nextOpening(ws []spec.Window, now time.Time) time.Time {
	key := windowsKey(ws)
	if o.openings == nil || key == "" {
		return NextOpening(ws, now)
	}
	if c, ok := o.openings[key]; ok && c.now.Equal(now) {
		return c.at
	}
	at := NextOpening(ws, now)
	o.openings[key] = opening{now: now, at: at}
	return at
}

// windowsKey identifies a window list by what its windows say (their declared fields).
func windowsKey(ws []spec.Window) string {
	b, err := json.Marshal(ws)
	if err != nil {
		return "" // never for these string fields; no key: not memoised
	}
	return string(b)
}
