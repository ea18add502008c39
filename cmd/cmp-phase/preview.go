package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argoclient "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// runPreview renders the rollout's next batch locally, as if admitted, from the spec in
// --dir and the cluster's state and inventory, and diffs each child against the live one.
// It changes nothing.
func runPreview(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cmp-phase preview", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var k kubeFlags
	k.BindFlags(fs)
	dir := fs.String("dir", ".", "the parent's app directory (holding the spec)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: cmp-phase preview <rollout> [--dir <app dir>] [flags]")
		fs.PrintDefaults()
	}
	if err := parseInterleaved(fs, args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	if err := preview(ctx, k, fs.Arg(0), *dir, stdout); err != nil {
		fmt.Fprintln(stderr, "cmp-phase:", err)
		return 1
	}
	return 0
}

func preview(ctx context.Context, k kubeFlags, rolloutName, dir string, w io.Writer) error {
	sp, err := spec.Load(dir, targets.NewCache(64))
	if err != nil {
		return err
	}
	if sp.Name != rolloutName {
		return fmt.Errorf("the spec in %s is rollout %q, not %q", dir, sp.Name, rolloutName)
	}
	kc, cfg, ns, _, err := k.connectConfig()
	if err != nil {
		return err
	}
	st, inv, err := readFromCluster(ctx, generateOptions{stateNamespace: ns}, rolloutName, kc)
	if err != nil {
		return err
	}
	if st == nil {
		return fmt.Errorf("rollout %s has no state yet: nothing is admitted before its first sync", rolloutName)
	}
	next := rollout.PreviewNext(st, sp.Phases)
	docs, err := render.New(4).Render(render.Input{Spec: sp, Inventory: inv, State: next,
		Env: render.Env{PhaseGen: st.Generation, StateNamespace: ns, AppNamespace: ns}})
	if err != nil {
		return err
	}
	argo, err := argoclient.NewForConfig(cfg)
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
