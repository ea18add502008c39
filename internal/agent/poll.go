package agent

import (
	"context"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// pollParents asks Argo CD, every interval until ctx ends, to refresh the parents of the
// rollouts this agent drives: a requested refresh makes Argo CD resolve the parent's
// targetRevision again, past the repo-server's revision cache, so a commit starts its
// rollout within the interval with no webhook — whatever Argo CD's reconciliation timeout
// (120 s by default, plus up to 60 s of jitter). A new commit is then rendered and applied
// like any other: the poll only makes it seen sooner.
//
// Parents that follow the same repository and revision are one source: each interval one
// of them (in turn) is refreshed — one ls-remote per source, however many parents (shards,
// rollouts of one repository) share it. When their last comparisons resolved different
// commits (one found a commit the others have not seen), the others are refreshed within
// catchUpEvery, each at most once an interval and once for each commit another found (a
// parent whose comparison keeps failing is not asked every few seconds).
func (a *Agent) pollParents(ctx context.Context, every time.Duration) {
	tick, catchUp := time.NewTicker(every), time.NewTicker(min(every, catchUpEvery))
	defer tick.Stop()
	defer catchUp.Stop()
	asked := map[string]ask{}
	for turn := 0; ; {
		var parents, due []*v1alpha1.Application
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			parents = a.polledParents()
			due = pollOrder(parents, turn)
			turn++
		case <-catchUp.C:
			parents = a.polledParents()
			due = behind(parents, asked, time.Now(), every)
		}
		seen := resolved(parents)
		for _, app := range due {
			if ctx.Err() != nil {
				return
			}
			asked[app.Name] = ask{at: time.Now(), seen: seen[sourceKey(app)]}
			if err := a.refreshParent(ctx, app); err != nil && ctx.Err() == nil {
				a.log.Warn("parent refresh failed", "parent", app.Name, "error", err)
			}
		}
		for name, last := range asked {
			if time.Since(last.at) >= every {
				delete(asked, name) // behind asks it again anyway
			}
		}
	}
}

// ask is when the poll last asked a parent for a refresh, and the commits its source's
// parents had resolved then.
type ask struct {
	at   time.Time
	seen []string
}

// catchUpEvery is how often the poll looks for parents behind another of their source.
const catchUpEvery = 2 * time.Second

// polledParents are the cached parents that the plans this agent reads name, which a
// refresh may move: not pinned to a commit, not being deleted, no refresh pending.
func (a *Agent) polledParents() []*v1alpha1.Application {
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
		if app, err := a.caches.apps.Get(name); err == nil && pollable(app) {
			out = append(out, app)
		}
	}
	return out
}

// pollOrder picks, of each source's parents sorted by name, the one whose turn it is, or
// all of them when they resolved different commits.
func pollOrder(parents []*v1alpha1.Application, turn int) []*v1alpha1.Application {
	var out []*v1alpha1.Application
	for _, group := range sources(parents) {
		if !agree(group) {
			out = append(out, group...) // one found a commit the others have not seen
			continue
		}
		out = append(out, group[turn%len(group)])
	}
	return out
}

// behind are the parents of sources whose parents resolved different commits that were
// not asked within every, or that another parent of theirs has since resolved a commit they
// were not asked to catch up to (a new commit found while a parent waits out its interval
// after the last one). A parent whose comparison keeps failing is so asked once an interval
// and once a commit, not every few seconds; one that found the new commit itself is not.
func behind(parents []*v1alpha1.Application, asked map[string]ask, now time.Time, every time.Duration) []*v1alpha1.Application {
	var out []*v1alpha1.Application
	for _, group := range sources(parents) {
		if agree(group) {
			continue
		}
		for _, app := range group {
			last, ok := asked[app.Name]
			if !ok || now.Sub(last.at) >= every || missed(group, app, last.seen) {
				out = append(out, app)
			}
		}
	}
	return out
}

// missed reports whether another parent of app's source resolved a commit that app has not
// and that none had resolved when app was last asked.
func missed(group []*v1alpha1.Application, app *v1alpha1.Application, seen []string) bool {
	return slices.ContainsFunc(group, func(other *v1alpha1.Application) bool {
		rev := other.Status.Sync.Revision
		return rev != app.Status.Sync.Revision && !slices.Contains(seen, rev)
	})
}

// resolved maps each source to the commits its parents last resolved.
func resolved(parents []*v1alpha1.Application) map[string][]string {
	out := map[string][]string{}
	for _, app := range parents {
		key := sourceKey(app)
		if !slices.Contains(out[key], app.Status.Sync.Revision) {
			out[key] = append(out[key], app.Status.Sync.Revision)
		}
	}
	return out
}

// sources groups parents by repository and revision, in a stable order (by key, then name).
func sources(parents []*v1alpha1.Application) [][]*v1alpha1.Application {
	bySource := map[string][]*v1alpha1.Application{}
	for _, app := range parents {
		key := sourceKey(app)
		bySource[key] = append(bySource[key], app)
	}
	out := make([][]*v1alpha1.Application, 0, len(bySource))
	for _, key := range slices.Sorted(maps.Keys(bySource)) {
		group := bySource[key]
		slices.SortFunc(group, func(x, y *v1alpha1.Application) int { return strings.Compare(x.Name, y.Name) })
		out = append(out, group)
	}
	return out
}

// sourceKey is the repository and revision a parent follows.
func sourceKey(app *v1alpha1.Application) string {
	return app.Spec.Source.RepoURL + "@" + app.Spec.Source.TargetRevision
}

// agree reports whether a source's parents last resolved one commit.
func agree(group []*v1alpha1.Application) bool {
	return !slices.ContainsFunc(group, func(app *v1alpha1.Application) bool {
		return app.Status.Sync.Revision != group[0].Status.Sync.Revision
	})
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
	return err
}

// pollable reports whether a refresh of the parent may find a new commit.
func pollable(app *v1alpha1.Application) bool {
	if app.DeletionTimestamp != nil || app.Annotations[v1alpha1.AnnotationKeyRefresh] != "" {
		return false
	}
	src := app.Spec.Source
	return src != nil && src.Plugin != nil && !commitSHA.MatchString(src.TargetRevision)
}

// commitSHA is a full git commit SHA (SHA-1 or SHA-256): a parent pinned to one never moves.
var commitSHA = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)
