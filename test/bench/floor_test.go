//go:build e2e

package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/test/framework"
)

// The floor is the ideal orchestrator: a driver that knows the answer. Its six children
// are the others' (same template, workload, project, destination and sync options: none)
// without automated sync; at the commit, it syncs each batch of the three steps (50% at
// a time: one child) through argocd-server's API, at the commit, the moment the batch
// before it is Synced and Healthy on it (the bench's own watch). No render, no state, no
// gates: what Argo CD alone takes to sync six children one after another, the floor any
// orchestrator on Argo CD stands on.

// floorClient is argocd-server's API with a token of an account allowed get and sync.
type floorClient struct {
	base, token string
	http        *http.Client
}

func newFloorClient(ctx context.Context, e *framework.Env) (*floorClient, error) {
	path, err := e.APITokenFileWith(ctx, "floor", "get", "sync")
	if err != nil {
		return nil, err
	}
	tok, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the floor's token: %w", err)
	}
	return &floorClient{base: "http://" + e.ArgoServer, token: strings.TrimSpace(string(tok)), http: &http.Client{Timeout: time.Minute}}, nil
}

// sync asks argocd-server to sync app at revision, as `argocd app sync app --revision` does.
func (c *floorClient) sync(ctx context.Context, app, revision string) error {
	body, _ := json.Marshal(map[string]any{"name": app, "appNamespace": "argocd", "revision": revision})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/api/v1/applications/"+app+"/sync", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("sync %s: %w", app, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		var msg bytes.Buffer
		_, _ = msg.ReadFrom(resp.Body)
		return fmt.Errorf("sync %s: %s: %s", app, resp.Status, msg.String())
	}
	return nil
}

// createFloor commits the floor's workload and makes its six children, then syncs them
// all at v0 (the first deployment is not timed).
func createFloor(ctx context.Context, e *framework.Env, s *setup) error {
	sha, err := e.Git.Commit(s.name+": v0", map[string]string{s.workloadPath(): s.workload("v0")})
	if err != nil {
		return err
	}
	for _, c := range e.Clusters {
		app := &v1alpha1.Application{
			ObjectMeta: metav1.ObjectMeta{Name: s.child(c), Namespace: "argocd", Labels: map[string]string{"env": c.Labels["env"]},
				Annotations: map[string]string{"argocd.argoproj.io/manifest-generate-paths": "."}},
			Spec: v1alpha1.ApplicationSpec{Project: "default",
				Source:      &v1alpha1.ApplicationSource{RepoURL: e.Git.URL, TargetRevision: "HEAD", Path: s.name + "/workload"},
				Destination: v1alpha1.ApplicationDestination{Server: c.Server, Namespace: c.Name}},
		}
		if _, err := e.Argo.ArgoprojV1alpha1().Applications("argocd").Create(ctx, app, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("floor child %s: %w", app.Name, err)
		}
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Second) {
		var failed error
		for _, c := range e.Clusters {
			if app, err := e.App(ctx, s.child(c)); err == nil && app.Status.Sync.Revision == sha && app.Status.Sync.Status == v1alpha1.SyncStatusCodeSynced {
				continue
			}
			if err := s.floor.sync(ctx, s.child(c), sha); err != nil {
				failed = err // e.g. a sync still running, or not refreshed yet
			}
		}
		if failed == nil || time.Now().After(deadline) {
			return failed
		}
	}
}

// drive is the floor's rollout of the commit sha: each batch synced the moment the one
// before it is done, as the record (the bench's watch) sees it.
func (s *setup) drive(ctx context.Context, r *record, clusters []framework.Cluster) error {
	order := slices.Clone(clusters)
	slices.SortStableFunc(order, func(a, b framework.Cluster) int { return stepOf(a) - stepOf(b) })
	for _, c := range order { // maxUpdate 50% of two: one child a batch
		child := s.child(c)
		r.note("driver", "sync "+child+" requested")
		if err := s.floor.sync(ctx, child, r.sha); err != nil {
			return err
		}
		r.note("driver", "sync "+child+" accepted")
		for !r.isDoneNow(child) {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	return nil
}

// note adds a driver's event to the record's timeline.
func (r *record) note(who, what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notes = append(r.notes, event{time.Now(), who, what})
}

// isDoneNow: the watch saw child done.
func (r *record) isDoneNow(child string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.done[child]
	return ok
}
