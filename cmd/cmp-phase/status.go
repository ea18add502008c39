package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/status"
)

// runStatus prints a rollout's status: a table, or the stable document as JSON or YAML;
// --watch redraws whenever the state changes.
func runStatus(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cmp-phase status", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var k kubeFlags
	var out outputFlags
	var w waitFlags
	k.BindFlags(fs)
	out.BindFlags(fs)
	fs.BoolVar(&w.wait, "wait", false, "wait until the current (or last) rollout ends, show it, and exit 0 if it completed, 1 if it stopped, rolled back or was abandoned, 3 on --timeout")
	fs.DurationVar(&w.timeout, "timeout", 0, "with --wait: give up after this long (exit 3); 0: wait as long as it takes")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: cmp-phase status <rollout> [-o table|json|yaml] [--watch | --wait [--timeout D]] [flags]")
		fs.PrintDefaults()
	}
	if err := parseInterleaved(fs, args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || !out.valid() {
		fs.Usage()
		return 2
	}
	if w.wait && out.watch {
		fmt.Fprintln(stderr, "cmp-phase: --wait and --watch together (fix: keep one)")
		return 2
	}
	kc, ns, _, err := k.connect()
	if err != nil {
		fmt.Fprintln(stderr, "cmp-phase:", err)
		return 1
	}
	if w.wait {
		return waitFor(ctx, kc, ns, fs.Arg(0), out.format, w, stdout, stderr)
	}
	last := ""
	for {
		rv, err := show(ctx, kc, ns, fs.Arg(0), out.format, last, stdout)
		if err != nil {
			fmt.Fprintln(stderr, "cmp-phase:", err)
			return 1
		}
		if !out.watch {
			return 0
		}
		last = rv
		select {
		case <-ctx.Done():
			return 0
		case <-time.After(time.Second):
		}
	}
}

// show prints the status unless the state's resourceVersion is still last (a table always
// redraws: its soak countdown moves); it returns the version shown.
func show(ctx context.Context, kc kubernetes.Interface, ns, rollout, output, last string, w io.Writer) (string, error) {
	cm, err := kc.CoreV1().ConfigMaps(ns).Get(ctx, contract.StateConfigMap(rollout), metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("rollout %s: %w", rollout, err)
	}
	if cm.ResourceVersion == last && output != "table" {
		return last, nil
	}
	st, err := state.FromConfigMap(cm)
	if err != nil {
		return "", err
	}
	doc := status.Of(rollout, st)
	shards, err := shardsOf(ctx, kc, ns, rollout)
	if err != nil {
		return "", err
	}
	status.AddShards(&doc, shards)
	switch output {
	case "json":
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return "", err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return cm.ResourceVersion, err
	case "yaml":
		b, err := yaml.Marshal(doc)
		if err != nil {
			return "", err
		}
		_, err = fmt.Fprintf(w, "---\n%s", b)
		return cm.ResourceVersion, err
	}
	if last != "" {
		fmt.Fprint(w, "\x1b[H\x1b[2J") // redraw in place
	}
	return cm.ResourceVersion, status.Table(w, doc, time.Now())
}

// parseInterleaved parses flags given before, between or after positional arguments, as
// kubectl does.
func parseInterleaved(fs *flag.FlagSet, args []string) error {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return fs.Parse(pos)
}
