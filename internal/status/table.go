package status

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Width is the table's limit (but -o wide's).
const Width = 100

// TableOptions change the table: NoHeaders leaves out the column headers (PHASE …, SHARD
// …); Wide adds when each phase, child and hook started and ended, and cuts no line.
type TableOptions struct {
	NoHeaders bool
	Wide      bool
}

// Table writes the document as a table no wider than Width columns, at now (for the soak
// countdown).
func Table(w io.Writer, d Doc, now time.Time) error { return WriteTable(w, d, now, TableOptions{}) }

// WriteTable writes the document as a table, at now, as o says. Its columns are
// text/tabwriter's: a long name widens its column on every row alike.
func WriteTable(w io.Writer, d Doc, now time.Time, o TableOptions) error {
	var b strings.Builder
	line := func(format string, args ...any) {
		l := fmt.Sprintf(format, args...)
		if !o.Wide {
			l = fit(l)
		}
		b.WriteString(strings.TrimRight(l, " ") + "\n")
	}
	headLines(line, d)
	shardLines(line, d, o)
	for _, c := range slices.Sorted(maps.Keys(d.Unphased)) {
		line("NOT PHASED %s follows %s (pin targetRevision in the spec)", c, d.Unphased[c])
	}
	for _, c := range slices.Sorted(maps.Keys(d.LeftOut)) {
		line("LEFT OUT %s: %s", c, d.LeftOut[c])
	}
	tabulate(line, o.Wide, phaseRows(d, now, o))
	historyLines(line, d.History)
	for _, r := range d.Rejected {
		line("REFUSED %s", r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// headLines are the rollout's own lines: where it is, its window, pause and budget.
func headLines(line func(string, ...any), d Doc) {
	line("ROLLOUT %s  generation %d  deployed %s%s", d.Rollout, d.Generation, short(d.Deployed), at(d, d.Deployed))
	head := d.Status
	if d.Revision != "" {
		head = fmt.Sprintf("%s of %s%s", d.Status, short(d.Revision), at(d, d.Revision))
	}
	if d.Phase != "" {
		head += " at " + d.Phase
	}
	line("STATUS  %s", head)
	if d.Reason != "" {
		line("REASON  %s", d.Reason)
	}
	if w := d.Window; w != nil {
		line("WINDOW  %s", windowText(w))
	}
	if p := d.Paused; p != nil {
		line("PAUSED  %sby %s since %s: %s", fleetWide(p), p.By, p.Since.UTC().Format(time.RFC3339), p.Reason)
	}
	if len(d.Skipped) > 0 {
		line("SKIPPED %s", strings.Join(d.Skipped, ", "))
	}
	if d.FailureBudget != nil {
		line("FAILURES %s", d.FailureBudget)
	}
	for _, t := range d.Tracks {
		line("TRACK   %s", trackText(t))
	}
}

// row is one row of a table: its cells, and for -o wide when its subject started and
// ended (zero: not known, or not yet).
type row struct {
	cells      []string
	start, end time.Time
	head       bool // the column headers
}

// phaseRows are the phases' rows, each followed by its children's, hooks' and answers'
// (indented), then the post-delete hooks': one table, so the columns line up on all.
func phaseRows(d Doc, now time.Time, o TableOptions) []row {
	var rows []row
	if len(d.Phases) > 0 && !o.NoHeaders {
		rows = append(rows, row{cells: []string{"PHASE", "STATUS", "ADMITTED", "TIME", "GATE"}, head: true})
	}
	for _, p := range d.Phases {
		rows = append(rows, row{cells: []string{phaseLabel(p), p.Status, fmt.Sprintf("%d/%d", p.Admitted, p.Members), phaseTime(p, now), gate(p, now)}, start: p.StartedAt, end: p.EndedAt})
		for _, c := range p.Clusters {
			rows = append(rows, row{cells: []string{"  " + c.Name, c.Status, "", clusterTime(c, now), c.Reason}, start: c.AdmittedAt, end: c.SettledAt})
		}
		for _, h := range p.Hooks {
			rows = append(rows, row{cells: []string{"  hook", h.Status, "", hookTime(h, now), h.Key + "  " + h.Message}, start: h.StartedAt, end: h.FinishedAt})
		}
		rows = append(rows, approvalRows(p, now)...)
	}
	for _, h := range d.AfterDelete {
		rows = append(rows, row{cells: []string{"post-delete", h.Status, "", hookTime(h, now), h.Key + "  " + h.Message}, start: h.StartedAt, end: h.FinishedAt})
	}
	return rows
}

// tabulate writes rows as aligned columns, the last cell of each unaligned; wide puts
// STARTED and ENDED before it.
func tabulate(line func(string, ...any), wide bool, rows []row) {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	for _, r := range rows {
		cells := r.cells
		if wide {
			last := len(cells) - 1
			stamps := []string{stamp(r.start), stamp(r.end)}
			if r.head {
				stamps = []string{"STARTED", "ENDED"}
			}
			cells = append(append(slices.Clone(cells[:last]), stamps...), cells[last])
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	_ = tw.Flush() // a strings.Builder does not fail
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if l != "" {
			line("%s", l)
		}
	}
}

// stamp is a time for -o wide: UTC to the second, "-" when zero.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// fit cuts a line to Width columns (runes), marking the cut.
func fit(s string) string {
	r := []rune(s)
	if len(r) <= Width {
		return s
	}
	return string(r[:Width-1]) + "…"
}
