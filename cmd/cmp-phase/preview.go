package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argoclient "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned"
	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// newPreview renders the rollout's next batch locally, as if admitted, from the spec in
// --dir and the cluster's state and inventory, and diffs each child against the live one.
// It changes nothing.
func newPreview(a *app) *cobra.Command {
	dir := "."
	c := &cobra.Command{
		Use:     "preview <rollout> [--dir <app dir>]",
		GroupID: "rollouts",
		Short:   "Render the next batch locally and diff it against the live children",
		Long: `Render the rollout's next batch locally, as if admitted, from the spec in --dir and the
cluster's state and inventory, and print each child that would change with the changed
lines of its spec. It changes nothing.

` + exitCodesHelp,
		Example:           `  cmp-phase preview guestbook --dir apps/guestbook`,
		Args:              exactArgs(1, "one rollout"),
		ValidArgsFunction: a.completeRollout,
		RunE: func(c *cobra.Command, args []string) error {
			cn, err := a.connect()
			if err != nil {
				return failed(err)
			}
			return failed(preview(a.ctx, cn, args[0], dir, a.out))
		},
	}
	c.Flags().StringVar(&dir, "dir", dir, "the parent's app directory (holding the spec)")
	return a.withKube(c)
}

func preview(ctx context.Context, cn *conn, rolloutName, dir string, w io.Writer) error {
	sp, err := spec.Load(dir, targets.NewCache(64))
	if err != nil {
		return err
	}
	if sp.Name != rolloutName {
		return fmt.Errorf("the spec in %s is rollout %q, not %q (fix: name the rollout the spec in --dir is, or point --dir at its spec)", dir, sp.Name, rolloutName)
	}
	ns := cn.namespace
	st, inv, err := readFromCluster(ctx, generateOptions{stateNamespace: ns}, rolloutName, cn.kc)
	if err != nil {
		return err
	}
	if st == nil {
		return fmt.Errorf("rollout %s has no state yet: nothing is admitted before its first sync", rolloutName)
	}
	next := rollout.PreviewNext(st, sp.Phases)
	docs, err := render.New(4).Render(render.Input{Spec: sp, Inventory: inv, State: next,
		Env: render.Env{PhaseGen: st.Generation, StateNamespace: ns, AppNamespace: ns}, Ctx: ctx})
	if err != nil {
		return err
	}
	argo, err := argoclient.NewForConfig(cn.cfg)
	if err != nil {
		return fmt.Errorf("argo client: %w", err)
	}
	return diffChildren(ctx, argo, ns, docs, next, w)
}

// diffChildren prints, for each rendered child that differs from the live one, its name and
// the changed lines of its spec.
func diffChildren(ctx context.Context, argo argoclient.Interface, ns string, docs [][]byte, next *state.State, w io.Writer) error {
	changed := 0
	for _, d := range docs {
		var app v1alpha1.Application
		if err := json.Unmarshal(d, &app); err != nil || app.Kind != "Application" {
			continue
		}
		live, err := argo.ArgoprojV1alpha1().Applications(ns).Get(ctx, app.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			changed++
			fmt.Fprintf(w, "+ %s (new, revision %s)\n", app.Name, app.Annotations[contract.AnnotationRevision])
			continue
		case err != nil:
			return fmt.Errorf("read child %s: %w", app.Name, err)
		}
		lines := specDiff(live.Spec, app.Spec)
		if len(lines) == 0 {
			continue
		}
		changed++
		fmt.Fprintf(w, "~ %s (revision %s → %s)\n", app.Name, live.Annotations[contract.AnnotationRevision], app.Annotations[contract.AnnotationRevision])
		for _, l := range lines {
			fmt.Fprintln(w, "    "+l)
		}
	}
	phase := "no further phase"
	if r := next.Rollout; r != nil && r.Phase < len(r.Phases) {
		phase = "the rollout is at phase " + r.Phases[r.Phase].Name
	}
	fmt.Fprintf(w, "%d children change with the next batch (%s)\n", changed, phase)
	return nil
}

// specDiff lists the lines of b's indented JSON that a lacks (+) and a's that b lacks (-).
func specDiff(a, b v1alpha1.ApplicationSpec) []string {
	aj, _ := json.MarshalIndent(a, "", "  ")
	bj, _ := json.MarshalIndent(b, "", "  ")
	al, bl := strings.Split(string(aj), "\n"), strings.Split(string(bj), "\n")
	count := func(lines []string) map[string]int {
		m := map[string]int{}
		for _, l := range lines {
			m[l]++
		}
		return m
	}
	ac, bc := count(al), count(bl)
	var out []string
	for _, l := range al {
		if bc[l] == 0 {
			out = append(out, "- "+strings.TrimSpace(l))
		}
	}
	for _, l := range bl {
		if ac[l] == 0 {
			out = append(out, "+ "+strings.TrimSpace(l))
		}
	}
	return out
}
