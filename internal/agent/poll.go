package agent

import (
	"context"
	"regexp"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// pollParents asks Argo CD for a normal refresh of every parent this agent drives, every
// interval, until ctx ends. A requested refresh makes Argo CD resolve the parent's
// targetRevision again (past the repo-server's revision cache), so a commit reaches a
// phased rollout within the interval with no webhook — whatever Argo CD's own
// reconciliation timeout (120 s by default, plus up to 60 s of jitter). A new commit is
// then rendered and applied as any other: the poll only makes it seen sooner.
func (a *Agent) pollParents(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			for _, name := range a.parents.names() {
				if err := a.refreshParent(ctx, name); err != nil && ctx.Err() == nil {
					a.log.Warn("parent refresh failed", "parent", name, "error", err)
				}
			}
		}
	}
}

// refreshParent requests a normal refresh of one parent, unless polling it can find
// nothing: it is gone or being deleted, a refresh is pending, or it is pinned to a commit.
func (a *Agent) refreshParent(ctx context.Context, name string) error {
	app, err := a.caches.apps.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !pollable(app) {
		return nil
	}
	patch := []byte(`{"metadata":{"annotations":{"` + v1alpha1.AnnotationKeyRefresh + `":"` + string(v1alpha1.RefreshTypeNormal) + `"}}}`)
	_, err = a.argo.ArgoprojV1alpha1().Applications(a.opts.Namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// pollable reports whether a refresh of the parent may find a new commit.
func pollable(app *v1alpha1.Application) bool {
	if app.DeletionTimestamp != nil || app.Annotations[v1alpha1.AnnotationKeyRefresh] != "" {
		return false
	}
	src := app.Spec.Source
	return src != nil && !commitSHA.MatchString(src.TargetRevision)
}

// commitSHA is a full git commit SHA (SHA-1 or SHA-256): a parent pinned to one never moves.
var commitSHA = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)
