package parentpoll

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
)

// Ask is when the poll last asked a parent for a refresh, and the commits its source's
// parents had resolved then.
type Ask struct {
	At   time.Time // when
	Seen []string  // the commits its source's parents had resolved then
}

// CatchUpEvery is how often the poll looks for parents behind another of their source.
const CatchUpEvery = 2 * time.Second

// InTurn picks, of each source's parents sorted by name, the one whose turn it is, or
// all of them when they resolved different commits.
func InTurn(parents []*v1alpha1.Application, turn int) []*v1alpha1.Application {
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

// Behind are the parents of sources whose parents resolved different commits that were
// not asked within every, or that another parent of theirs has since resolved a commit they
// were not asked to catch up to (a new commit found while a parent waits out its interval
// after the last one). A parent whose comparison keeps failing is so asked once an interval
// and once a commit, not every few seconds; one that found the new commit itself is not.
func Behind(parents []*v1alpha1.Application, asked map[string]Ask, now time.Time, every time.Duration) []*v1alpha1.Application {
	var out []*v1alpha1.Application
	for _, group := range sources(parents) {
		if agree(group) {
			continue
		}
		for _, app := range group {
			last, ok := asked[app.Name]
			if !ok || now.Sub(last.At) >= every || missed(group, app, last.Seen) {
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

// Resolved maps each source to the commits its parents last resolved.
func Resolved(parents []*v1alpha1.Application) map[string][]string {
	out := map[string][]string{}
	for _, app := range parents {
		key := SourceKey(app)
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
		key := SourceKey(app)
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

// SourceKey is the repository and revision a parent follows.
func SourceKey(app *v1alpha1.Application) string {
	return app.Spec.Source.RepoURL + "@" + app.Spec.Source.TargetRevision
}

// agree reports whether a source's parents last resolved one commit.
func agree(group []*v1alpha1.Application) bool {
	return !slices.ContainsFunc(group, func(app *v1alpha1.Application) bool {
		return app.Status.Sync.Revision != group[0].Status.Sync.Revision
	})
}

// Pollable reports whether a refresh of the parent may find a new commit.
func Pollable(app *v1alpha1.Application) bool {
	if app.DeletionTimestamp != nil || app.Annotations[v1alpha1.AnnotationKeyRefresh] != "" {
		return false
	}
	src := app.Spec.Source
	return src != nil && src.Plugin != nil && !commitSHA.MatchString(src.TargetRevision)
}

// commitSHA is a full git commit SHA (SHA-1 or SHA-256): a parent pinned to one never moves.
var commitSHA = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)
