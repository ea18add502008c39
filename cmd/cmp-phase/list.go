package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/status"
)

// rolloutRow is one rollout of list: its -o json item.
type rolloutRow struct {
	Namespace string `json:"namespace"`
	Rollout   string `json:"rollout"`
	Status    string `json:"status"`
	Phase     string `json:"phase,omitempty"`
	// Admitted of Members: the distinct children the current (or last) rollout admitted,
	// of those taking part.
	Admitted   int       `json:"admitted"`
	Members    int       `json:"members"`
	Revision   string    `json:"revision,omitempty"`
	Deployed   string    `json:"deployed,omitempty"`
	Generation int64     `json:"generation"`
	Since      time.Time `json:"since"` // the rollout's start, else the state's creation
	Paused     bool      `json:"paused,omitempty"`
	Error      string    `json:"error,omitempty"` // a state that cannot be read
}

// rolloutList is list's -o json|yaml document.
type rolloutList struct {
	Items []rolloutRow `json:"items"`
}

func newList(a *app) *cobra.Command {
	var all bool
	var out *output
	c := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		GroupID: "rollouts",
		Short:   "List the rollouts of a namespace (-A: of every namespace)",
		Long: `List the rollouts of a namespace, or of every namespace with -A: one line each from its
state ConfigMap (label ` + contract.StateSelector + `), with its status, current phase,
the children admitted of those taking part, and its age (since the current or last rollout
started). -o wide adds the revisions and the generation.

` + exitCodesHelp,
		Example: `  cmp-phase list
  cmp-phase list -A
  cmp-phase list -n argocd -o wide
  cmp-phase list -A -o jsonpath='{range .items[*]}{.namespace}/{.rollout} {.status}{"\n"}{end}'`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := out.check(); err != nil {
				return err
			}
			cn, err := a.connect()
			if err != nil {
				return failed(err)
			}
			ns := cn.namespace
			if all {
				ns = metav1.NamespaceAll
			}
			cms, err := cn.kc.CoreV1().ConfigMaps(ns).List(a.ctx, metav1.ListOptions{LabelSelector: contract.StateSelector})
			if err != nil {
				return failed(fmt.Errorf("list the rollouts: %w", err))
			}
			doc := rolloutList{Items: rowsOf(cms.Items)}
			if len(doc.Items) == 0 && out.table() {
				where := "namespace " + cn.namespace
				if all {
					where = "any namespace"
				}
				fmt.Fprintf(a.errOut, "No rollouts found in %s.\n", where)
				return nil
			}
			names := make([]string, len(doc.Items))
			for i, r := range doc.Items {
				names[i] = r.Rollout
			}
			return failed(out.print(a.out, doc, names, func(w io.Writer) error {
				return listTable(w, doc.Items, tableOf{all: all, wide: out.format() == "wide", noHeaders: out.noHeaders}, time.Now())
			}))
		},
	}
	out = newOutput(c, true)
	c.Flags().BoolVarP(&all, "all-namespaces", "A", false, "list the rollouts of every namespace")
	return a.withKube(c)
}

// rowsOf reads each state ConfigMap into a row, sorted by namespace and rollout.
func rowsOf(cms []corev1.ConfigMap) []rolloutRow {
	rows := make([]rolloutRow, 0, len(cms))
	for i := range cms {
		cm := &cms[i]
		name, ok := contract.RolloutOfState(cm.Name)
		if !ok {
			continue
		}
		row := rolloutRow{Namespace: cm.Namespace, Rollout: name, Since: cm.CreationTimestamp.Time}
		st, err := state.FromConfigMap(cm)
		if err != nil {
			row.Status, row.Error = "Unknown", err.Error()
			rows = append(rows, row)
			continue
		}
		fillRow(&row, st)
		rows = append(rows, row)
	}
	slices.SortFunc(rows, func(a, b rolloutRow) int {
		return strings.Compare(a.Namespace+"/"+a.Rollout, b.Namespace+"/"+b.Rollout)
	})
	return rows
}

// fillRow sets a row from the rollout's state, as status shows it.
func fillRow(row *rolloutRow, st *state.State) {
	doc := status.Of(row.Rollout, st)
	row.Status, row.Phase, row.Generation, row.Revision, row.Deployed = doc.Status, doc.Phase, doc.Generation, doc.Revision, doc.Deployed
	row.Paused = st.Paused != nil
	r := st.Rollout
	if r == nil {
		return
	}
	if !r.StartedAt.IsZero() {
		row.Since = r.StartedAt
	}
	members, admitted := map[string]bool{}, map[string]bool{}
	for _, ph := range r.Phases {
		for _, m := range ph.Members {
			members[m] = true
		}
		for _, m := range ph.Admitted {
			admitted[m] = true
		}
	}
	row.Members, row.Admitted = len(members), len(admitted)
}

// tableOf is how list's table is drawn: -A adds the namespace, -o wide the revisions,
// --no-headers leaves out the column headers.
type tableOf struct{ all, wide, noHeaders bool }

// listTable writes the rows as columns (tabwriter: a long name widens its column, the
// others stay in line).
func listTable(w io.Writer, rows []rolloutRow, t tableOf, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	head := []string{"ROLLOUT", "STATUS", "PHASE", "ADMITTED", "AGE"}
	if t.all {
		head = append([]string{"NAMESPACE"}, head...)
	}
	if t.wide {
		head = append(head, "REVISION", "DEPLOYED", "GENERATION", "PAUSED")
	}
	if !t.noHeaders {
		fmt.Fprintln(tw, strings.Join(head, "\t"))
	}
	for _, r := range rows {
		cols := []string{r.Rollout, r.Status, orNone(r.Phase), fmt.Sprintf("%d/%d", r.Admitted, r.Members), duration.HumanDuration(now.Sub(r.Since))}
		if t.all {
			cols = append([]string{r.Namespace}, cols...)
		}
		if t.wide {
			cols = append(cols, orNone(short(r.Revision)), orNone(short(r.Deployed)), fmt.Sprint(r.Generation), fmt.Sprint(r.Paused))
		}
		fmt.Fprintln(tw, strings.Join(cols, "\t"))
	}
	return tw.Flush()
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// short is a revision's first 12 characters, as status prints it.
func short(rev string) string { return rev[:min(12, len(rev))] }
