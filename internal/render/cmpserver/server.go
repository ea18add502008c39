package cmpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/argoproj/argo-cd/v3/cmpserver/apiclient"
	"github.com/argoproj/argo-cd/v3/util/cmp"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/content"
	"github.com/cmp-phase/cmp-phase/internal/render/pipeline"
	"github.com/cmp-phase/cmp-phase/internal/render/tmpl"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// Store gives the current state and inventory (backed by informers in production).
type Store interface {
	// State returns the rollout's state, nil when it has no state ConfigMap.
	State(rollout string) (*state.State, error)
	Inventory() (*inventory.Inventory, error)
}

// Options configure the server.
type Options struct {
	WorkDir        string        // temp dirs for received repositories go here
	StateNamespace string        // namespace of the plan ConfigMap
	StaleWait      time.Duration // how long a render waits for the informer to reach PHASE_GEN
	// RenderTimeout ends a render that runs longer, whatever its stream's deadline (zero:
	// DefaultRenderTimeout). Template executions check it at every loop round, call and
	// write (tmpl.Bounds), so a render past it stops and frees what it held.
	RenderTimeout time.Duration
	// Renders bounds how many renders run at once; the others wait for a turn within
	// their deadline (zero: DefaultRenders).
	Renders int
	// Metrics registers the sidecar's metrics (nil: none kept).
	Metrics prometheus.Registerer
}

// DefaultRenderTimeout is under the 60 s Argo CD's application controller gives a manifest
// generation (ARGOCD_REPO_SERVER_TIMEOUT_SECONDS), so a render that cannot finish fails
// with our message before the controller's own timeout hides it.
const DefaultRenderTimeout = 45 * time.Second

// DefaultRenders is how many renders run at once: each may hold one template execution's
// bounds (tmpl.DefaultBounds, 16 MiB) and a state, so together they stay far within the
// sidecar's 512 MiB limit; renders of a fleet take tens of milliseconds, so a queue of
// waiting renders clears fast.
const DefaultRenders = 4

// Server implements the CMP service.
type Server struct {
	apiclient.UnimplementedConfigManagementPluginServiceServer
	opts     Options
	store    Store
	log      *slog.Logger
	renderer *render.Renderer
	exprs    *targets.Cache
	specs    *lru.Cache[string, *spec.Spec]
	digests  *content.Digester
	metrics  *metrics
	turns    chan struct{} // one token per render running (Options.Renders)
}

// paramSets is how many revisions keep their generated parameters between renders: a
// render uses the spec-only revision, the deployed one, the rollout's and any pinned ones,
// and renders of two rollouts interleave — with fewer sets than that in use, least
// recently used eviction misses on every lookup. At 10,000 clusters a set is ≈ 5 MiB, and
// only sets in use are kept, so 8 costs nothing until a fleet uses them.
const paramSets = 8

func newMetricsOrNil(reg prometheus.Registerer) *metrics {
	if reg == nil {
		return nil
	}
	return newMetrics(reg)
}

// New makes a server.
func New(opts Options, store Store, log *slog.Logger) *Server {
	if opts.StaleWait == 0 {
		opts.StaleWait = 10 * time.Second
	}
	if opts.RenderTimeout == 0 {
		opts.RenderTimeout = DefaultRenderTimeout
	}
	if opts.Renders == 0 {
		opts.Renders = DefaultRenders
	}
	specs, _ := lru.New[string, *spec.Spec](64)
	return &Server{opts: opts, store: store, log: log, renderer: render.NewBounded(64, paramSets), exprs: targets.NewCache(1024), specs: specs,
		digests: content.NewDigester(256, content.Limits{}), metrics: newMetricsOrNil(opts.Metrics),
		turns: make(chan struct{}, opts.Renders)}
}

// GenerateManifest receives the repository and renders the app directory.
func (s *Server) GenerateManifest(stream apiclient.ConfigManagementPluginService_GenerateManifestServer) error {
	ctx := stream.Context()
	start := time.Now()
	dir, err := os.MkdirTemp(s.opts.WorkDir, "render-")
	if err != nil {
		return status.Errorf(codes.Internal, "create work dir: %v", err)
	}
	defer os.RemoveAll(dir)
	md, err := cmp.ReceiveRepoStream(ctx, stream, dir, false)
	received := time.Since(start) // the repo-server's tarball of the repository, streamed and unpacked
	if err != nil {
		return status.Errorf(codes.InvalidArgument, "receive repository: %v", err)
	}
	appPath, err := insideDir(dir, md.GetAppRelPath())
	if err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	env := map[string]string{}
	for _, e := range md.GetEnv() {
		env[e.GetName()] = e.GetValue()
	}
	docs, err := s.renderInTurn(ctx, dir, appPath, env)
	if err != nil {
		s.log.Warn("render failed", "app", env[contract.EnvAppName], "error", oneLine(err), "duration", time.Since(start))
		s.metrics.rendered(codeOf(err).String(), time.Since(start), received)
		return status.Error(codeOf(err), oneLine(err))
	}
	s.metrics.rendered("ok", time.Since(start), received)
	manifests := manifestsOf(docs)
	s.log.Info("rendered", "app", env[contract.EnvAppName], "documents", len(docs), "duration", time.Since(start), "received", received)
	return stream.SendAndClose(&apiclient.ManifestResponse{Manifests: manifests})
}

// manifestsOf is the response's manifests: one string per document.
func manifestsOf(docs [][]byte) []string {
	manifests := make([]string, len(docs))
	for i, d := range docs {
		manifests[i] = string(d)
	}
	return manifests
}

// renderInTurn renders once a turn is free, within RenderTimeout.
func (s *Server) renderInTurn(ctx context.Context, root, appPath string, env map[string]string) ([][]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.RenderTimeout)
	defer cancel()
	select {
	case s.turns <- struct{}{}:
		defer func() { <-s.turns }()
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for a turn to render (%d run at once): %w", cap(s.turns), ctx.Err())
	}
	return s.render(ctx, root, appPath, env)
}

// render runs the render pipeline on the received repository: the spec cached by content,
// state and inventory from the store; a stale state is retried until the informer catches
// up or StaleWait passes.
func (s *Server) render(ctx context.Context, root, appPath string, env map[string]string) ([][]byte, error) {
	p := pipeline.Pipeline{Renderer: s.renderer, Digests: s.digests, StateNamespace: s.opts.StateNamespace, StaleWait: s.opts.StaleWait}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	return p.Run(ctx, source{s: s, root: root}, appPath, lookup)
}

// source is the pipeline's inputs in the sidecar: the received repository at root, the
// spec parsed once per content, state and inventory from the store.
type source struct {
	s    *Server
	root string
}

func (src source) Spec(dir string) (*spec.Spec, error) { return src.s.loadSpec(dir) }

func (src source) SpecGone(_ context.Context, parent string, loadErr error) ([][]byte, error) {
	return src.s.specGone(parent, loadErr)
}

// Inputs is the state the informer has, then the inventory.
func (src source) Inputs(_ context.Context, rollout string) (*state.State, *inventory.Inventory, error) {
	began := time.Now()
	st, err := src.s.store.State(rollout)
	src.s.metrics.stateRead(time.Since(began))
	if err != nil {
		return nil, nil, err
	}
	inv, err := src.s.store.Inventory()
	if err != nil {
		return nil, nil, err
	}
	return st, inv, nil
}

func (src source) Root() (string, error) { return src.root, nil }

// loadSpec parses the app directory's spec, reusing the parse of identical content.
func (s *Server) loadSpec(dir string) (*spec.Spec, error) {
	key, err := contentKey(dir)
	if err != nil {
		return nil, err
	}
	if sp, ok := s.specs.Get(key); ok {
		s.metrics.spec(true)
		return sp, nil
	}
	s.metrics.spec(false)
	sp, err := spec.Load(dir, s.exprs)
	if err != nil {
		return nil, err
	}
	s.specs.Add(key, sp)
	return sp, nil
}

// contentKey hashes the names and contents of the directory's top-level spec files.
func contentKey(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("read app dir: %w", err)
	}
	h := sha256.New()
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if !e.Type().IsRegular() || !slices.Contains([]string{".yaml", ".yml", ".json"}, ext) {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return "", fmt.Errorf("read app dir: %w", err)
		}
		fmt.Fprintf(h, "%s\x00", e.Name())
		_, err = io.Copy(h, io.LimitReader(f, spec.MaxFileSize+1))
		_ = f.Close()
		if err != nil {
			return "", fmt.Errorf("read app dir: %w", err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// insideDir resolves rel under dir and refuses anything that escapes it.
func insideDir(dir, rel string) (string, error) {
	p := filepath.Clean(filepath.Join(dir, rel))
	r, err := filepath.Rel(dir, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("app path %q escapes the work dir", rel)
	}
	return p, nil
}

func codeOf(err error) codes.Code {
	var se spec.Errors
	switch {
	case errors.As(err, &se):
		return codes.InvalidArgument
	case errors.Is(err, render.ErrStale), errors.Is(err, context.DeadlineExceeded):
		return codes.Unavailable
	case errors.Is(err, tmpl.ErrBound), errors.Is(err, tmpl.ErrRefused):
		return codes.InvalidArgument
	default:
		return codes.FailedPrecondition
	}
}

func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// MatchRepository answers no: discovery is off; the parent names the plugin.
func (s *Server) MatchRepository(stream apiclient.ConfigManagementPluginService_MatchRepositoryServer) error {
	if err := drain(stream.Recv); err != nil {
		return status.Errorf(codes.InvalidArgument, "receive repository: %v", err)
	}
	return stream.SendAndClose(&apiclient.RepositoryResponse{IsSupported: false, IsDiscoveryEnabled: false})
}

// GetParametersAnnouncement announces no parameters.
func (s *Server) GetParametersAnnouncement(stream apiclient.ConfigManagementPluginService_GetParametersAnnouncementServer) error {
	if err := drain(stream.Recv); err != nil {
		return status.Errorf(codes.InvalidArgument, "receive repository: %v", err)
	}
	return stream.SendAndClose(&apiclient.ParametersAnnouncementResponse{})
}

// CheckPluginConfiguration says discovery is not configured and git creds are not needed.
func (s *Server) CheckPluginConfiguration(context.Context, *emptypb.Empty) (*apiclient.CheckPluginConfigurationResponse, error) {
	return &apiclient.CheckPluginConfigurationResponse{IsDiscoveryConfigured: false, ProvideGitCreds: false}, nil
}

func drain(recv func() (*apiclient.AppStreamRequest, error)) error {
	for {
		if _, err := recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
