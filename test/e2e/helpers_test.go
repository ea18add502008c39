//go:build e2e

package e2e

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/content"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"

	_ "github.com/cmp-phase/cmp-phase/internal/hooks/all" // every hook kind, as the binaries register them
)

// revisionOf parses a spec committed to the test repository and returns its revision id
// and body as a render of the repository's head computes them: with the content its
// children deploy from the repository (pinCommits), pinned to the head commit.
func revisionOf(t *testing.T, yaml string) (string, []byte) {
	t.Helper()
	s, err := spec.Parse("appset.yaml", []byte(yaml), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	_, body, id, err := s.Revision()
	if err != nil {
		t.Fatal(err)
	}
	head, err := env.Git.Head()
	if err != nil {
		t.Fatal(err)
	}
	in := render.Input{Spec: s, Inventory: env.Inventory(), Env: render.Env{Source: render.Source{RepoURL: env.Git.URL, TargetRevision: "HEAD", Commit: head}}}
	c, _, err := inputs.Content(render.New(1), content.NewDigester(1, content.Limits{}), in, env.Git.WorkDir)
	if err != nil {
		t.Fatal(err)
	}
	if c == nil {
		return id, body
	}
	body, id, err = spec.WithContent(body, *c)
	if err != nil {
		t.Fatal(err)
	}
	return id, body
}

func putState(ctx context.Context, t *testing.T, rollout string, st *state.State) {
	t.Helper()
	if err := env.PutState(ctx, rollout, st); err != nil {
		t.Fatal(err)
	}
}

func putConfigMap(ctx context.Context, t *testing.T, cm *corev1.ConfigMap) {
	t.Helper()
	if err := env.PutConfigMap(ctx, cm); err != nil {
		t.Fatal(err)
	}
}

func setPhaseGen(ctx context.Context, t *testing.T, parent string, gen int64) {
	t.Helper()
	if err := env.SetPhaseGen(ctx, parent, gen); err != nil {
		t.Fatal(err)
	}
}

func newParent(ctx context.Context, t *testing.T, name, path string, gen int64) {
	t.Helper()
	if err := env.NewParent(ctx, name, path, gen); err != nil {
		t.Fatal(err)
	}
}

type corev1Event = corev1.Event
