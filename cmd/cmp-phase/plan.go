package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/clustersecrets"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// lineupDoc is plan's -o json|yaml document: where each child of the spec lands, in order.
type lineupDoc struct {
	Rollout  string        `json:"rollout"`
	Revision string        `json:"revision"`
	Dialect  string        `json:"dialect"`
	Phases   []lineupPhase `json:"phases"`
	// Tracks are the tracks the rollout splits into (absent: no split).
	Tracks []string `json:"tracks,omitempty"`
	// Children is how many children take part: every phase's members, each once (a
	// phase's Admitted counts against it).
	Children int `json:"children"`
	// Warnings are what the agent would warn of, or refuse, when the rollout starts.
	Warnings []string `json:"warnings,omitempty"`
	// LeftOut are the clusters and children no phase admits, each with the reason.
	LeftOut []lineupLeftOut `json:"leftOut,omitempty"`
}

// lineupPhase is one phase (one step of a RollingSync spec; with tracks, one track's copy).
type lineupPhase struct {
	Step  int    `json:"step"` // 1-based, in the order phases run (a track's copies run side by side)
	Name  string `json:"name"`
	Track string `json:"track,omitempty"`
	// Size is how many of the members the phase admits (phaseDeployment, counting those
	// earlier phases admitted), or may update at once (RollingSync's maxUpdate).
	Size string `json:"size"`
	// Members are every child the phase's targets select, in the order it takes them
	// (phaseDeployment phases are cumulative: a later phase selects the earlier ones too).
	Members []lineupMember `json:"members"`
	// Admits are the members this phase admits (rollout.Admissions: none an earlier phase
	// admitted), batch by batch, as a rollout in which every child changes goes when each
	// batch settles and every gate is approved; Admitted is the count admitted by the end
	// of the phase, this one's included.
	Admits   []lineupMember `json:"admits"`
	Admitted int            `json:"admitted"`
}

// lineupMember is one child in its phase, in the order the phase admits them.
type lineupMember struct {
	Batch   int    `json:"batch,omitempty"` // in Admits: the 1-based batch of the phase
	Order   int    `json:"order"`
	Child   string `json:"child"`
	Cluster string `json:"cluster,omitempty"`
}

// lineupLeftOut is a cluster or child no phase admits.
type lineupLeftOut struct {
	Cluster string `json:"cluster,omitempty"`
	Child   string `json:"child,omitempty"`
	Reason  string `json:"reason"`
}

func newPlan(a *app) *cobra.Command {
	var invFile string
	var out *output
	limits := spec.DefaultLimits()
	c := &cobra.Command{
		Use:     "plan <spec file|dir> [--inventory-file <file>]",
		GroupID: "rollouts",
		Short:   "Show offline which cluster lands in which phase, step and track, in which order",
		Long: `Show, from a spec and an inventory, which cluster's child lands in which phase (step of a
RollingSync spec), on which track: per phase the children it admits (none an earlier phase
admitted), batch by batch, with the count admitted so far; why each cluster or child left
out is left out; and the warnings the agent would give (many hooks, a phase over
--max-apps-per-phase): what a rollout of this spec in which every child changes goes
through when each batch settles and every gate is approved. It renders the spec's plan and
lines the children up with the agent's own code (render, rollout.Lineup and
rollout.Admissions), so it cannot disagree with the agent. It refuses what validate
refuses, with the same message, under the same limit flags (the agent's settings).

The inventory is --inventory-file (a ConfigMap manifest or {"clusters":[...]}), else the
Argo CD cluster Secrets of the namespace (-n, kubectl's flags), read as the agent reads
them; a spec of list generators needs none. Nothing is written.

` + exitCodesHelp,
		Example: `  cmp-phase plan apps/guestbook/ --inventory-file clusters.json
  cmp-phase plan apps/guestbook/appset.yaml -n argocd -o json`,
		Args: exactArgs(1, "one spec file or directory"),
		RunE: func(c *cobra.Command, args []string) error {
			return a.runPlan(args[0], invFile, out, limits)
		},
	}
	out = newOutput(c, false)
	c.Flags().StringVar(&invFile, "inventory-file", "", "the inventory: a ConfigMap manifest or {\"clusters\":[...]} (default: the cluster Secrets of -n)")
	gofs := flag.NewFlagSet("plan", flag.ContinueOnError)
	limits.BindFlags(gofs) // validate's limit flags: the agent's settings of the same names
	gofs.IntVar(&limits.AppsPerPhase, spec.FlagMaxAppsPerPhase, limits.AppsPerPhase, "members a phaseDeployment phase may have, as the agent's setting (a larger one is shown as a rollout that would not start)")
	c.Flags().AddGoFlagSet(gofs)
	return a.withKube(c)
}

// runPlan is plan's run: it checks the spec as validate does, reads the inventory, refuses
// what no render would make, and prints the line-up of the children.
func (a *app) runPlan(specPath, invFile string, out *output, limits spec.Limits) error {
	if err := out.check(); err != nil {
		return err
	}
	if err := limits.Validate(); err != nil {
		return usageError("%w", err)
	}
	s, err := validateOne(specPath, targets.NewCache(64), limits)
	if err != nil {
		return failed(fmt.Errorf("%s (fix: `cmp-phase validate %s` lists every problem)", oneLine(err), specPath))
	}
	inv, err := a.planInventory(s, invFile)
	if err != nil {
		return failed(err)
	}
	// The line-up reads names and labels only; generate renders every child — refusing
	// a cluster name that is no label value, two clusters giving one child name, a
	// template past its bounds — so must plan, or it lists children no render would make.
	unrendered, err := render.CheckReport(s, inv)
	if err != nil {
		return failed(s.Locate(fmt.Errorf("rollout %s: %w", s.Name, err)))
	}
	doc, err := planOf(a.ctx, s, inv, limits)
	if err != nil {
		return failed(err)
	}
	cannotRender(doc, unrendered)
	return failed(out.print(a.out, doc, []string{doc.Rollout}, func(w io.Writer) error { return planTable(w, doc, out.noHeaders) }))
}

// planInventory is --inventory-file, else the namespace's cluster Secrets as the agent
// publishes them; none for a spec without a clusters generator.
func (a *app) planInventory(s *spec.Spec, file string) (*inventory.Inventory, error) {
	if file != "" {
		return inputs.InventoryFromFile(file)
	}
	if !usesClusters(s) {
		return &inventory.Inventory{}, nil
	}
	cn, err := a.connect()
	if err != nil {
		return nil, fmt.Errorf("%w (or pass --inventory-file)", err)
	}
	sel := contract.LabelSecretType + "=" + contract.SecretTypeCluster
	list, err := cn.kc.CoreV1().Secrets(cn.namespace).List(a.ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, fmt.Errorf("list the cluster Secrets of %s: %w (fix: pass --inventory-file, or -n the namespace of Argo CD's cluster Secrets)", cn.namespace, err)
	}
	secrets := make([]*corev1.Secret, len(list.Items))
	for i := range list.Items {
		secrets[i] = &list.Items[i]
	}
	return clustersecrets.Inventory(secrets), nil
}

func usesClusters(s *spec.Spec) bool {
	return slices.ContainsFunc(s.Generators, func(g spec.Generator) bool { return g.Clusters != nil })
}

// planOf renders the spec's plan ConfigMap as the sidecar does, decodes it as the agent
// does, and lines the children up as a rollout starts (every child changed).
func planOf(ctx context.Context, s *spec.Spec, inv *inventory.Inventory, limits spec.Limits) (*lineupDoc, error) {
	r := render.New(1)
	env, err := inputs.Env(func(string) (string, bool) { return "", false }, contract.DefaultNamespace)
	if err != nil {
		return nil, err
	}
	docs, err := r.Render(render.Input{Spec: s, Inventory: inv, Env: env, Ctx: ctx})
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", s.Name, err)
	}
	p, err := decodedPlan(docs, s.Name)
	if err != nil {
		return nil, err
	}
	subjects, err := r.Subjects(ctx, p.Rollout, p.Revision, p.Body, inv)
	if err != nil {
		return nil, err
	}
	var taking []targets.Child
	for _, c := range subjects {
		if !c.Absent {
			taking = append(taking, c)
		}
	}
	phases, tracks, err := rollout.Lineup(*p, taking)
	if err != nil {
		return nil, fmt.Errorf("rollout %s: %w", s.Name, err)
	}
	doc := &lineupDoc{Rollout: p.Rollout, Revision: p.Revision, Dialect: string(s.Dialect)}
	for _, t := range tracks {
		doc.Tracks = append(doc.Tracks, t.Name)
	}
	clusterOf := map[string]string{}
	for _, c := range subjects {
		clusterOf[c.Key] = c.Name
	}
	placed, admits, total := map[string]bool{}, rollout.Admissions(*p, phases), 0
	for i := range phases {
		pp, err := phaseOf(s.Name, p, phases, i, admits[i], clusterOf, placed)
		if err != nil {
			return nil, err
		}
		total += len(pp.Admits)
		pp.Admitted = total
		doc.Phases = append(doc.Phases, pp)
	}
	doc.Children = len(placed)
	doc.Warnings = rollout.LimitWarnings(*p, phases, limits)
	doc.LeftOut = append(leftOut(s, inv, subjects, placed), neverAdmitted(doc, clusterOf)...)
	return doc, nil
}

// phaseOf is phases[i] as plan shows it: its members in the order it takes them, and
// batches, the members it admits batch by batch; placed records each member. Admitted is
// the caller's to count.
func phaseOf(rolloutName string, p *plan.Plan, phases []state.PhaseState, i int, batches [][]string, clusterOf map[string]string, placed map[string]bool) (lineupPhase, error) {
	ph := phases[i]
	k := slices.IndexFunc(p.Phases, func(x spec.Phase) bool { return x.Name == ph.Name })
	if k < 0 {
		return lineupPhase{}, fmt.Errorf("rollout %s: the line-up names phase %s, which the plan lacks", rolloutName, ph.Name)
	}
	pp := lineupPhase{Step: stepOf(phases, i), Name: ph.Name, Track: ph.Track, Size: sizeText(p.Phases[k].Size), Members: []lineupMember{}}
	for j, m := range ph.Members {
		pp.Members = append(pp.Members, lineupMember{Order: j + 1, Child: m, Cluster: clusterOf[m]})
		placed[m] = true
	}
	pp.Admits = []lineupMember{}
	for b, batch := range batches {
		for _, m := range batch {
			pp.Admits = append(pp.Admits, lineupMember{Batch: b + 1, Order: len(pp.Admits) + 1, Child: m, Cluster: clusterOf[m]})
		}
	}
	return pp, nil
}

// decodedPlan finds the rollout's plan ConfigMap among the rendered documents and decodes
// it as the agent does.
func decodedPlan(docs [][]byte, name string) (*plan.Plan, error) {
	for _, d := range docs {
		var cm corev1.ConfigMap
		if err := json.Unmarshal(d, &cm); err != nil || cm.Kind != "ConfigMap" || cm.Name != contract.PlanConfigMap(name) {
			continue
		}
		return plan.Decode(plan.Manifest{Namespace: cm.Namespace, Name: cm.Name, Labels: cm.Labels, Annotations: cm.Annotations, Data: cm.Data}, targets.NewCache(64))
	}
	return nil, fmt.Errorf("the render of %s has no plan ConfigMap %s", name, contract.PlanConfigMap(name))
}

// stepOf is the 1-based step of phases[i]: a track's copies of a phase share the step of
// that phase in the plan.
func stepOf(phases []state.PhaseState, i int) int {
	if phases[i].Track == "" {
		return i + 1
	}
	first := slices.IndexFunc(phases, func(p state.PhaseState) bool { return p.Track == phases[i].Track })
	shared := slices.IndexFunc(phases, func(p state.PhaseState) bool { return p.Track != "" })
	return shared + (i - first) + 1
}

// leftOut are the inventory's clusters no child is generated for, the children whose
// cluster Secret is gone, and the children no phase selects.
func leftOut(s *spec.Spec, inv *inventory.Inventory, subjects []targets.Child, placed map[string]bool) []lineupLeftOut {
	var out []lineupLeftOut
	if usesClusters(s) {
		generated := map[string]bool{}
		for _, c := range subjects {
			generated[c.Server] = true
		}
		for _, cl := range inv.Clusters {
			if !generated[cl.Server] {
				out = append(out, lineupLeftOut{Cluster: cl.Name, Reason: "the spec's clusters generator does not select it: no child is generated for it"})
			}
		}
	}
	steps := slices.ContainsFunc(s.Phases, func(p spec.Phase) bool { return p.MatchAppLabels })
	for _, c := range subjects {
		switch {
		case c.Absent:
			out = append(out, lineupLeftOut{Cluster: c.Name, Child: c.Key, Reason: "its cluster Secret is gone: the child is held for the removal grace and takes part in no rollout"})
		case !placed[c.Key] && steps:
			out = append(out, lineupLeftOut{Cluster: c.Name, Child: c.Key, Reason: "no step selects it: the parent renders it with automated sync off, to be synced by hand, and no rollout updates it (seed 003; fix: add a step that selects it)"})
		case !placed[c.Key]:
			out = append(out, lineupLeftOut{Cluster: c.Name, Child: c.Key, Reason: "no phase's targets select it: no rollout of this spec updates it (fix: add a phase, or a target, that selects it)"})
		}
	}
	return out
}

// neverAdmitted are the children some phase selects but none admits: the phases that
// select them stop at their size.
func neverAdmitted(doc *lineupDoc, clusterOf map[string]string) []lineupLeftOut {
	admitted, selects := map[string]bool{}, map[string][]string{}
	var order []string
	for _, p := range doc.Phases {
		for _, m := range p.Admits {
			admitted[m.Child] = true
		}
		for _, m := range p.Members {
			if selects[m.Child] == nil {
				order = append(order, m.Child)
			}
			selects[m.Child] = append(selects[m.Child], p.Name)
		}
	}
	var out []lineupLeftOut
	for _, c := range order {
		if !admitted[c] {
			out = append(out, lineupLeftOut{Cluster: clusterOf[c], Child: c, Reason: fmt.Sprintf(
				"phase %s selects it, but no phase admits it: each stops at its percentage or maxUpdate, so a rollout leaves it where it is (fix: end with a phase of every cluster, e.g. percentage: 100)",
				strings.Join(slices.Compact(selects[c]), ", "))})
		}
	}
	return out
}

// cannotRender says, of the children left out that the render left out too, why: their
// template cannot render (render.CheckReport), so the parent does not render them at all.
func cannotRender(doc *lineupDoc, unrendered map[string]string) {
	for i, l := range doc.LeftOut {
		if why, ok := unrendered[l.Child]; ok && l.Child != "" {
			doc.LeftOut[i].Reason = "no step selects it and its template cannot render, so the parent leaves it out (a ChildrenLeftOut Event says so when a rollout starts): " + why
		}
	}
}

func sizeText(s spec.Size) string {
	switch {
	case s.Gate:
		return "0 (a manual approval)"
	case s.Kind == spec.SizeCount:
		return fmt.Sprint(s.Value)
	case s.Kind == spec.SizePercent:
		return fmt.Sprintf("%d%%", s.Value)
	}
	return "all"
}

// planTable writes the plan: a line per child in admission order (noHeaders: without the
// column headers), then those left out.
func planTable(w io.Writer, d *lineupDoc, noHeaders bool) error {
	fmt.Fprintf(w, "ROLLOUT %s  revision %s  %s\n", d.Rollout, short(d.Revision), d.Dialect)
	if len(d.Tracks) > 0 {
		fmt.Fprintf(w, "TRACKS  %s\n", strings.Join(d.Tracks, ", "))
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	if !noHeaders {
		fmt.Fprintln(tw, "STEP\tPHASE\tTRACK\tSIZE\tBATCH\tADMITS\tCLUSTER\tADMITTED")
	}
	for _, p := range d.Phases {
		if len(p.Admits) == 0 {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t-\t<none>\t-\t%d/%d\n", p.Step, p.Name, orDash(p.Track), p.Size, p.Admitted, d.Children)
		}
		for i, m := range p.Admits {
			so := ""
			if i == len(p.Admits)-1 {
				so = fmt.Sprintf("%d/%d", p.Admitted, d.Children)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", p.Step, p.Name, orDash(p.Track), p.Size, m.Batch, m.Child, m.Cluster, so)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, w8 := range d.Warnings {
		fmt.Fprintf(w, "WARNING %s\n", w8)
	}
	for _, l := range d.LeftOut {
		what := "cluster " + l.Cluster
		if l.Child != "" {
			what = "child " + l.Child
		}
		fmt.Fprintf(w, "LEFT OUT %s: %s\n", what, l.Reason)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
