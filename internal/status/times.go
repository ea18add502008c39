package status

import (
	"fmt"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TableHistory is how many of the latest history entries the table shows (the JSON and
// YAML documents have every one the state keeps).
const TableHistory = 10

func history(entries []state.Entry) []Entry {
	out := make([]Entry, 0, len(entries))
	for _, e := range entries {
		out = append(out, Entry{At: e.At, Event: e.Event, Message: e.Message})
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// historyLines writes the latest TableHistory entries of the history, oldest first.
func historyLines(line func(string, ...any), h []Entry) {
	if len(h) == 0 {
		return
	}
	shown := h[max(0, len(h)-TableHistory):]
	if len(shown) < len(h) {
		line("HISTORY (latest %d of %d; -o yaml has all)", len(shown), len(h))
	} else {
		line("HISTORY")
	}
	rows := make([]row, 0, len(shown))
	for _, e := range shown {
		rows = append(rows, row{cells: []string{"  " + e.At.UTC().Format(time.RFC3339), e.Event, e.Message}})
	}
	tabulate(line, false, rows)
}

// phaseTime says how long a phase ran, or has been running at now.
func phaseTime(p Phase, now time.Time) string {
	switch {
	case p.StartedAt.IsZero():
		return ""
	case !p.EndedAt.IsZero():
		return "ran " + dur(p.EndedAt.Sub(p.StartedAt))
	}
	return "running " + dur(now.Sub(p.StartedAt))
}

// clusterTime says how long an admitted child took to settle, or has been waiting at now.
func clusterTime(c Cluster, now time.Time) string {
	switch {
	case c.AdmittedAt.IsZero():
		return ""
	case !c.SettledAt.IsZero():
		return "took " + dur(c.SettledAt.Sub(c.AdmittedAt))
	case c.Status == string(state.ClusterWaiting):
		return "for " + dur(now.Sub(c.AdmittedAt))
	}
	return ""
}

// hookTime says how long a hook's last attempt took, or has been running at now.
func hookTime(h Hook, now time.Time) string {
	switch {
	case h.Duration != "":
		if d, err := time.ParseDuration(h.Duration); err == nil {
			return "took " + dur(d)
		}
		return ""
	case h.Status == string(state.HookRunning) && !h.StartedAt.IsZero():
		return "for " + dur(now.Sub(h.StartedAt))
	}
	return ""
}

// hookDuration is a ledger entry's duration as the document writes it: the runner's
// measure, else the span between its start and finish, else nothing (not finished).
func hookDuration(h state.HookRun) string {
	switch {
	case h.Duration > 0:
		return h.Duration.String()
	case h.FinishedAt != nil && !h.StartedAt.IsZero():
		return max(h.FinishedAt.Sub(h.StartedAt), 0).String()
	}
	return ""
}

// dur is a short duration for the table: milliseconds under a second, tenths under a
// minute, whole seconds above.
func dur(d time.Duration) string {
	d = max(d, 0)
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	case d < time.Hour:
		return d.Round(time.Second).String()
	}
	h := d.Round(time.Minute)
	return fmt.Sprintf("%dh%02dm", int(h.Hours()), int(h.Minutes())%60)
}

func deref(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}
