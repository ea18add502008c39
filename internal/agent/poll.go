package agent

import (
	"context"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cmp-phase/cmp-phase/internal/agent/parentpoll"
	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// pollParents asks Argo CD, every interval until ctx ends, to refresh the parents of the
// rollouts this agent drives: a requested refresh makes Argo CD resolve the parent's
// targetRevision again, past the repo-server's revision cache, so a commit starts its
// rollout within the interval with no webhook — whatever Argo CD's reconciliation timeout
// (120 s by default, plus up to 60 s of jitter). A new commit is then rendered and applied
// like any other: the poll only makes it seen sooner.
//
// Which parents, and when, is internal/agent/parentpoll's: one parent of each source in turn
// each interval; the others of a source whose parents resolved different commits within
// parentpoll.CatchUpEvery, each at most once an interval and once a commit.
func (a *Agent) pollParents(ctx context.Context, every time.Duration) {
	tick, catchUp := time.NewTicker(every), time.NewTicker(min(every, parentpoll.CatchUpEvery))
	defer tick.Stop()
	defer catchUp.Stop()
	asked := map[string]parentpoll.Ask{}
	for turn := 0; ; {
		var parents, due []*v1alpha1.Application
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			parents = a.polledParents(ctx)
			due = parentpoll.InTurn(parents, turn)
			turn++
		case <-catchUp.C:
			parents = a.polledParents(ctx)
			due = parentpoll.Behind(parents, asked, time.Now(), every)
		}
		seen := parentpoll.Resolved(parents)
		for _, app := range due {
			if ctx.Err() != nil {
				return
			}
			asked[app.Name] = parentpoll.Ask{At: time.Now(), Seen: seen[parentpoll.SourceKey(app)]}
			if err := a.refreshParent(ctx, app); err != nil && ctx.Err() == nil {
				a.log.Warn("parent refresh failed", "parent", app.Name, "error", err)
			}
		}
		for name, last := range asked {
			if time.Since(last.At) >= every {
				delete(asked, name) // behind asks it again anyway
			}
		}
	}
}

// polledParents are the cached parents that the plans this agent reads name, which a
// refresh may move: not pinned to a commit, not being deleted, no refresh pending.
func (a *Agent) polledParents(ctx context.Context) []*v1alpha1.Application {
	plans, err := a.caches.plans.List(labels.Everything())
	if err != nil {
		return nil
	}
	var out []*v1alpha1.Application
	seen := map[string]bool{}
	for _, cm := range plans {
		name := cm.Annotations[contract.AnnotationParent]
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		if app, err := a.parentApp(ctx, name); err == nil && parentpoll.Pollable(app) {
			out = append(out, app)
		}
	}
	return out
}

// refreshParent requests a normal refresh of one parent, on the condition that it is the
// version the cache holds (a refresh someone asked for meanwhile — a hard one — stays).
func (a *Agent) refreshParent(ctx context.Context, app *v1alpha1.Application) error {
	patch := []byte(`{"metadata":{"resourceVersion":"` + app.ResourceVersion + `","annotations":{"` +
		v1alpha1.AnnotationKeyRefresh + `":"` + string(v1alpha1.RefreshTypeNormal) + `"}}}`)
	_, err := a.argo.ArgoprojV1alpha1().Applications(a.opts.Namespace).Patch(ctx, app.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone, or changed: the next interval sees it as it is
	}
	if err == nil {
		a.metrics.RefreshedParent(a.parents.Of(app.Name)...)
	}
	return err
}
