package cmpserver

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/cmpserver/apiclient"
	"github.com/argoproj/argo-cd/v3/util/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// memStore is a Store held in memory.
type memStore struct {
	mu  sync.Mutex
	st  *state.State
	inv *inventory.Inventory
}

func (m *memStore) State(string) (*state.State, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.st, nil
}

func (m *memStore) Inventory() (*inventory.Inventory, error) { return m.inv, nil }

// startServer serves on a fresh socket and returns a client and the server's work dir.
func startServer(t *testing.T, store Store, staleWait time.Duration) (apiclient.ConfigManagementPluginServiceClient, string) {
	t.Helper()
	return startServerWith(t, store, Options{StaleWait: staleWait})
}

// startServerWith is startServer with opts (its WorkDir and StateNamespace set here).
func startServerWith(t *testing.T, store Store, opts Options) (apiclient.ConfigManagementPluginServiceClient, string) {
	t.Helper()
	sockDir, workDir := t.TempDir(), t.TempDir()
	opts.WorkDir, opts.StateNamespace = workDir, contract.DefaultNamespace
	srv := New(opts, store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, sockDir, contract.PluginName, srv) }()
	t.Cleanup(func() { cancel(); <-done })
	sock := filepath.Join(sockDir, contract.PluginName+".sock")
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return apiclient.NewConfigManagementPluginServiceClient(conn), workDir
}

// repo lays out a repository with the golden spec in apps/demo.
func repo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	b, err := os.ReadFile("../testdata/spec-v2.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "apps", "demo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "apps", "demo", "appset.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func generate(ctx context.Context, c apiclient.ConfigManagementPluginServiceClient, root, app string, env []string) (*apiclient.ManifestResponse, error) {
	stream, err := c.GenerateManifest(ctx)
	if err != nil {
		return nil, err
	}
	if err := cmp.SendRepoStream(ctx, filepath.Join(root, app), root, stream, env, nil); err != nil {
		return nil, err
	}
	return stream.CloseAndRecv()
}

func deployedStore(t *testing.T, root string) *memStore {
	t.Helper()
	s, err := spec.Load(filepath.Join(root, "apps", "demo"), targets.NewCache(4))
	if err != nil {
		t.Fatal(err)
	}
	_, body, id, _ := s.Revision()
	inv, err := inputs.InventoryFromFile("../testdata/inventory.json")
	if err != nil {
		t.Fatal(err)
	}
	children := []string{"guestbook-dev-1", "guestbook-dev-2", "guestbook-prod-1", "guestbook-prod-2", "guestbook-staging-1", "guestbook-staging-2"}
	return &memStore{inv: inv, st: &state.State{Schema: state.Schema, Generation: 5, Deployed: id, Children: children, Revisions: map[string]json.RawMessage{id: body}}}
}

func TestConcurrentRendersOverTheSocket(t *testing.T) {
	root := repo(t)
	client, workDir := startServer(t, deployedStore(t, root), time.Second)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := generate(context.Background(), client, root, "apps/demo", []string{contract.PluginEnvPhaseGen + "=5"})
			if err == nil && len(resp.Manifests) != 7 {
				err = status.Errorf(codes.Internal, "got %d manifests, want plan + 6 children", len(resp.Manifests))
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	waitEmpty(t, workDir, 10*time.Second)
}

func TestStaleStateHonoursTheDeadline(t *testing.T) {
	root := repo(t)
	client, workDir := startServer(t, deployedStore(t, root), time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := generate(ctx, client, root, "apps/demo", []string{contract.PluginEnvPhaseGen + "=9"})
	if err == nil || time.Since(start) > 20*time.Second {
		t.Fatalf("want a deadline error well before the minute of stale-wait, got %v after %s", err, time.Since(start))
	}
	// The handler stops waiting when the stream's deadline passes and removes its dir; had
	// it ignored the deadline it would hold the dir for the whole minute of stale-wait.
	waitEmpty(t, workDir, 20*time.Second)
}

// waitEmpty waits until the server removed every work dir (it does so after answering).
func waitEmpty(t *testing.T, dir string, bound time.Duration) {
	t.Helper()
	var left []os.DirEntry
	for deadline := time.Now().Add(bound); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if left, _ = os.ReadDir(dir); len(left) == 0 {
			return
		}
	}
	t.Fatalf("temp dirs left behind: %v", left)
}

func TestErrorsAreStatusesWithOneLine(t *testing.T) {
	root := repo(t)
	client, _ := startServer(t, &memStore{inv: &inventory.Inventory{}}, 100*time.Millisecond)
	_, err := generate(context.Background(), client, root, "apps/demo", []string{contract.PluginEnvPhaseGen + "=2"})
	st, _ := status.FromError(err)
	if st.Code() != codes.Unavailable || !strings.Contains(st.Message(), "PHASE_GEN is 2 but there is no state") {
		t.Fatalf("got %v", err)
	}
	_, err = generate(context.Background(), client, root, "apps", nil)
	if st, _ := status.FromError(err); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), "no ApplicationSet found") {
		t.Fatalf("an app dir without a spec: got %v", err)
	}
}

func TestInsideDir(t *testing.T) {
	for rel, ok := range map[string]bool{"apps/demo": true, ".": true, "../etc": false, "apps/../../x": true, "apps/../../../y": false, "/abs/../..": false} {
		_, err := insideDir("/work/x", rel)
		if (err == nil) != ok {
			t.Errorf("%q: err %v", rel, err)
		}
	}
}
