package appcache

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// LiveReadTimeout bounds the read of a parent the cache holds as its name.
const LiveReadTimeout = 10 * time.Second

// Live reads parents the cache holds as their name from the API server, and remembers
// each with that name-only copy's resourceVersion: the informer does not transform an
// object again on resync, so a parent nobody writes stays name-only, and is read once per
// version it has, not on every pass and poll. Safe for concurrent use.
type Live struct {
	mu sync.Mutex
	m  map[string]liveRead
}

type liveRead struct {
	cachedRV string
	app      *v1alpha1.Application
}

// Parent is the parent Application name as cached reads it or, when the cache holds only
// its name (a plan named it after its last change was cached), as live reads it, trimmed
// as the cache would (App). Not found: an error apierrors.IsNotFound knows.
func (l *Live) Parent(ctx context.Context, name string, cached, live func(context.Context, string) (*v1alpha1.Application, error)) (*v1alpha1.Application, error) {
	app, err := cached(ctx, name)
	if err != nil || !IsNameOnly(app) {
		l.remember(name, nil)
		return app, err
	}
	if read := l.remembered(name, app.ResourceVersion); read != nil {
		return read, nil
	}
	ctx, cancel := context.WithTimeout(ctx, LiveReadTimeout)
	defer cancel()
	got, err := live(ctx, name)
	if apierrors.IsNotFound(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("read parent %s (the cache holds only its name): %w", name, err)
	}
	trimmed, _ := App(got)
	read := trimmed.(*v1alpha1.Application)
	l.remember(name, &liveRead{cachedRV: app.ResourceVersion, app: read})
	return read, nil
}

func (l *Live) remembered(name, cachedRV string) *v1alpha1.Application {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.m[name]; ok && e.cachedRV == cachedRV {
		return e.app
	}
	return nil
}

func (l *Live) remember(name string, e *liveRead) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e == nil {
		delete(l.m, name)
		return
	}
	if l.m == nil {
		l.m = map[string]liveRead{}
	}
	l.m[name] = *e
}
