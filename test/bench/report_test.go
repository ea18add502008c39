//go:build e2e

package bench

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// result is what one run measured.
type result struct {
	total      time.Duration   // commit → every cluster runs it, Synced and Healthy
	first      time.Duration   // announcement (webhook, or the commit when polling) → first sync
	phaseHops  []time.Duration // last of step k done → first of step k+1 syncing
	batchHops  []time.Duration // one member done → the next member of its step syncing
	members    []time.Duration // a member syncing → done (Argo CD's part of its time)
	outOfOrder bool            // a member synced before the previous step, or its batch, was done
	redundant  int             // syncs beyond one per child
	writes     int             // state writes (cmp-phase)
}

func (r *record) result() result {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := result{writes: r.writes}
	announced := r.commitAt
	if !r.refresh.IsZero() {
		announced = r.refresh
	}
	var firstStart time.Time
	members := make([][]string, len(steps))
	for child, c := range r.children {
		end := later(r.done[child], r.workload[c.Name])
		out.total = max(out.total, end.Sub(r.commitAt))
		if s := r.syncStart[child]; !s.IsZero() && (firstStart.IsZero() || s.Before(firstStart)) {
			firstStart = s
		}
		if k := stepOf(c); k >= 0 {
			members[k] = append(members[k], child)
		}
		out.redundant += max(r.syncs(child)-1, 0)
		if s, d := r.syncStart[child], r.done[child]; !s.IsZero() && !d.IsZero() {
			out.members = append(out.members, d.Sub(s))
		}
	}
	out.first = firstStart.Sub(announced)
	for k := range members {
		slices.SortFunc(members[k], func(a, b string) int { return r.syncStart[a].Compare(r.syncStart[b]) })
		for i := 1; i < len(members[k]); i++ {
			h := r.syncStart[members[k][i]].Sub(r.done[members[k][i-1]])
			out.batchHops = append(out.batchHops, h)
			out.outOfOrder = out.outOfOrder || h < 0
		}
		if k == 0 || len(members[k]) == 0 || len(members[k-1]) == 0 {
			continue
		}
		var lastDone time.Time
		for _, m := range members[k-1] {
			lastDone = later(lastDone, r.done[m])
		}
		h := r.syncStart[members[k][0]].Sub(lastDone)
		out.phaseHops = append(out.phaseHops, h)
		out.outOfOrder = out.outOfOrder || h < 0
	}
	return out
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// quantile is the q-quantile (nearest rank) of ds; 0 when empty.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s)) + 0.5)
	return s[min(max(i-1, 0), len(s)-1)]
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f", d.Seconds()) }

// summary is one setup's figures over the runs of a mode.
type summary struct {
	totals, firsts, phaseHops, batchHops, members []time.Duration
	outOfOrder, redundant, writes                 int
}

func summarize(rs []result) summary {
	var s summary
	for _, r := range rs {
		s.totals = append(s.totals, r.total)
		s.firsts = append(s.firsts, r.first)
		s.phaseHops = append(s.phaseHops, r.phaseHops...)
		s.batchHops = append(s.batchHops, r.batchHops...)
		s.members = append(s.members, r.members...)
		s.redundant += r.redundant
		s.writes += r.writes
		if r.outOfOrder {
			s.outOfOrder++
		}
	}
	return s
}

// report writes the side-by-side table of one mode: every setup's figures and the ratio of
// each cmp-phase dialect's median total to RollingSync's.
func report(w io.Writer, title string, order []*setup, runs map[string][]result) map[string]summary {
	out := map[string]summary{}
	fmt.Fprintf(w, "\n%s\n", title)
	fmt.Fprintf(w, "| setup | runs | total min / median / max (s) | first sync median (s) | phase hop p50 / p99 (s) | batch hop p50 / p99 (s) | member p50 / p99 (s) | out-of-order runs | redundant syncs | state writes per run |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|---|\n")
	for _, st := range order {
		s := summarize(runs[st.name])
		out[st.name] = s
		writes := "—"
		if st.phased() && len(runs[st.name]) > 0 {
			writes = fmt.Sprintf("%.1f", float64(s.writes)/float64(len(runs[st.name])))
		}
		fmt.Fprintf(w, "| %s | %d | %s / %s / %s | %s | %s / %s | %s / %s | %s / %s | %d | %d | %s |\n", label(st), len(runs[st.name]),
			secs(quantile(s.totals, 0)), secs(quantile(s.totals, 0.5)), secs(quantile(s.totals, 1)),
			secs(quantile(s.firsts, 0.5)), secs(quantile(s.phaseHops, 0.5)), secs(quantile(s.phaseHops, 0.99)),
			secs(quantile(s.batchHops, 0.5)), secs(quantile(s.batchHops, 0.99)),
			secs(quantile(s.members, 0.5)), secs(quantile(s.members, 0.99)), s.outOfOrder, s.redundant, writes)
	}
	peer := quantile(out["rs"].totals, 0.5)
	var ratios []string
	for _, st := range order {
		if st.phased() && peer > 0 {
			ratios = append(ratios, fmt.Sprintf("%s %.2f×", label(st), quantile(out[st.name].totals, 0.5).Seconds()/peer.Seconds()))
		}
	}
	fmt.Fprintf(w, "median total against RollingSync's: %s\n", strings.Join(ratios, ", "))
	if floor := quantile(out["fl"].totals, 0.5); floor > 0 {
		ratios = ratios[:0]
		for _, st := range order {
			if st.kind != "floor" {
				ratios = append(ratios, fmt.Sprintf("%s %.2f×", label(st), quantile(out[st.name].totals, 0.5).Seconds()/floor.Seconds()))
			}
		}
		fmt.Fprintf(w, "median total against the floor's: %s\n", strings.Join(ratios, ", "))
	}
	return out
}

func label(st *setup) string {
	switch st.kind {
	case "rollingsync":
		return "Argo CD RollingSync"
	case "cmp-phase-rollingsync":
		return "cmp-phase, RollingSync dialect"
	case "floor":
		return "floor (a driver syncing through argocd-server)"
	default:
		return "cmp-phase, phases dialect"
	}
}
