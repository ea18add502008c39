package cmpserver

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// fleetRepoURL is BenchmarkFleet's repository (test/bench): the sidecar renders its spec,
// framework.FleetSpec.
const fleetRepoURL = framework.FleetRepoURL

// fleetBench is a sidecar over a fleet of n clusters: a repository at v1 and v2, the
// inventory ConfigMap, and states of a rollout of v2 in progress (every cluster deployed at
// v1, the canary and early phases done, part of the last phase admitted).
type fleetBench struct {
	srv    *Server
	idx    cache.Indexer
	root   string
	commit string
	states []*corev1.ConfigMap // the same rollout at successive generations
}

func commitOf(v string) string {
	sum := sha1.Sum([]byte(v))
	return hex.EncodeToString(sum[:])
}

func newFleetBench(tb testing.TB, n int) *fleetBench {
	tb.Helper()
	root := tb.TempDir()
	for _, v := range []string{"v1", "v2"} {
		files := map[string]string{
			"fleet/workload/" + v + "/workload.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fleet\ndata:\n  version: " + v + "\n",
		}
		for p, body := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
				tb.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, p), []byte(body), 0o644); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "fleet", "app"), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "fleet", "app", "appset.yaml"), []byte(framework.FleetSpec("v2")), 0o644); err != nil {
		tb.Fatal(err)
	}
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	srv := New(Options{WorkDir: tb.TempDir(), StateNamespace: contract.DefaultNamespace, StaleWait: time.Second},
		benchStore(idx), slog.New(slog.NewTextHandler(io.Discard, nil)))
	f := &fleetBench{srv: srv, idx: idx, root: root, commit: commitOf("v2")}
	inv := fleetInventory(n)
	f.putInventory(tb, inv, "1")
	revs := map[string]string{}
	for _, v := range []string{"v1", "v2"} {
		revs[v] = f.revision(tb, v, inv)
	}
	f.states = fleetStates(tb, inv, revs, f.revisionBodies(tb, revs, inv))
	f.putState(tb, 0, 1)
	// a sidecar that has rendered nothing yet
	f.srv = New(srv.opts, srv.store, srv.log)
	return f
}

// fleetInventory is n clusters in three regions, as BenchmarkFleet registers them.
func fleetInventory(n int) *inventory.Inventory {
	inv := &inventory.Inventory{}
	for i := range n {
		region := []string{"eu-west-1", "us-east-1", "ap-south-1"}[i%3]
		name := fmt.Sprintf("prod-%s-%05d", region, i)
		inv.Clusters = append(inv.Clusters, inventory.Cluster{Name: name, Server: "https://" + name + ".k8s.example.com",
			Labels: map[string]string{contract.LabelSecretType: contract.SecretTypeCluster, "env": "prod", "region": region}})
	}
	slices.SortFunc(inv.Clusters, func(a, b inventory.Cluster) int { return strings.Compare(a.Name, b.Name) })
	return inv
}

func (f *fleetBench) putInventory(tb testing.TB, inv *inventory.Inventory, rv string) {
	tb.Helper()
	b, err := inv.Encode()
	if err != nil {
		tb.Fatal(err)
	}
	data, bin, err := inputs.InventoryData(b)
	if err != nil {
		tb.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: contract.InventoryConfigMap, Namespace: contract.DefaultNamespace,
		UID: types.UID("inventory-uid"), ResourceVersion: rv}, Data: data, BinaryData: bin}
	if err := f.idx.Update(cm); err != nil {
		tb.Fatal(err)
	}
}

// putState stores state variant i under resourceVersion rv, as the informer would after a write.
func (f *fleetBench) putState(tb testing.TB, i, rv int) {
	tb.Helper()
	cm := f.states[i%len(f.states)].DeepCopy()
	cm.ResourceVersion = strconv.Itoa(rv)
	if err := f.idx.Update(cm); err != nil {
		tb.Fatal(err)
	}
}

// revision is the id of the spec at version v with the content of its commit, as the
// sidecar computes it.
func (f *fleetBench) revision(tb testing.TB, v string, inv *inventory.Inventory) string {
	_, id := f.revisionBody(tb, v, inv)
	return id
}

func (f *fleetBench) revisionBody(tb testing.TB, v string, inv *inventory.Inventory) ([]byte, string) {
	tb.Helper()
	sp, err := spec.Parse("appset.yaml", []byte(framework.FleetSpec(v)), targets.NewCache(8))
	if err != nil {
		tb.Fatal(err)
	}
	in := render.Input{Spec: sp, Inventory: inv, Env: render.Env{Source: render.Source{RepoURL: fleetRepoURL, TargetRevision: "HEAD", Commit: commitOf(v)}}}
	c, _, err := inputs.Content(f.srv.renderer, f.srv.digests, in, f.root)
	if err != nil || c == nil {
		tb.Fatalf("content of %s: %v", v, err)
	}
	_, body, _, err := sp.Revision()
	if err != nil {
		tb.Fatal(err)
	}
	body, id, err := spec.WithContent(body, *c)
	if err != nil {
		tb.Fatal(err)
	}
	return body, id
}

func (f *fleetBench) revisionBodies(tb testing.TB, revs map[string]string, inv *inventory.Inventory) map[string][]byte {
	out := map[string][]byte{}
	for v, id := range revs {
		out[id], _ = f.revisionBody(tb, v, inv)
	}
	return out
}

// fleetStates are two successive states of a rollout of v2 over every cluster at v1:
// canary (1%) and early (10%) done, the last phase with 40% (then 41%) admitted, each
// admitted child with its ledger entry and a full history.
func fleetStates(tb testing.TB, inv *inventory.Inventory, revs map[string]string, bodies map[string][]byte) []*corev1.ConfigMap {
	tb.Helper()
	children := make([]string, 0, len(inv.Clusters))
	for _, c := range inv.Clusters {
		children = append(children, "fleet-"+c.Name)
	}
	slices.Sort(children)
	n := len(children)
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	var out []*corev1.ConfigMap
	for g, last := range []int{n * 40 / 100, n * 41 / 100} {
		st := &state.State{Schema: state.Schema, Generation: int64(100 + g), ViewGeneration: int64(100 + g), Deployed: revs["v1"], Children: children,
			Revisions: map[string]json.RawMessage{}}
		for id, b := range bodies {
			st.Revisions[id] = b
		}
		// every phase snapshots the whole fleet; admitted are disjoint, in name order
		admitted := [][]string{children[:n/100], children[n/100 : n/100+n/10], children[n/100+n/10 : n/100+n/10+last]}
		r := &state.Rollout{Revision: revs["v2"], Status: state.RolloutProgressing, Phase: 2, StartedAt: at}
		for i, name := range []string{"canary", "early", "all"} {
			ph := state.PhaseState{Name: name, Status: state.PhaseAdmitting, Members: children, Admitted: admitted[i], Clusters: map[string]state.ClusterState{}}
			if i < 2 {
				ph.Status = state.PhaseSucceeded
			}
			for j, c := range admitted[i] {
				t := at.Add(time.Duration(i*3600+j) * time.Second)
				cs := state.ClusterState{Status: state.ClusterDone, AdmittedAt: t, SettledAt: t.Add(47 * time.Second)}
				if i == 2 && j >= last-n/100 {
					cs = state.ClusterState{Status: state.ClusterWaiting, Reason: "OutOfSync", AdmittedAt: t}
				}
				ph.Clusters[c] = cs
			}
			r.Phases = append(r.Phases, ph)
		}
		for i := range state.MaxHistory {
			r.Record(at.Add(time.Duration(i)*time.Minute), "PhaseProgressing", fmt.Sprintf("phase all: admitted %d children", i))
		}
		st.Rollout = r
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: contract.StateConfigMap("fleet"), Namespace: contract.DefaultNamespace,
			UID: types.UID("state-uid"), Labels: map[string]string{contract.LabelState: contract.MarkerValue}}}
		if err := state.ToConfigMap(st, cm); err != nil {
			tb.Fatal(err)
		}
		out = append(out, cm)
	}
	return out
}

// env is what the repo-server sends for shard k of shards.
func (f *fleetBench) env(k, shards int) map[string]string {
	return map[string]string{contract.EnvAppName: fmt.Sprintf("fleet-%d", k), contract.EnvAppNamespace: contract.DefaultNamespace,
		contract.EnvAppRevision: f.commit, contract.EnvAppSourceRepoURL: fleetRepoURL, contract.EnvAppSourcePath: "fleet/app",
		contract.EnvAppSourceTargetRevision: "HEAD", contract.PluginEnvShard: fmt.Sprintf("%d/%d", k, shards)}
}

// renderShard renders shard k of 5 as GenerateManifest does after receiving the
// repository, and returns the bytes of the response's manifests.
func (f *fleetBench) renderShard(tb testing.TB, k int) int {
	docs, err := f.srv.render(context.Background(), f.root, filepath.Join(f.root, "fleet", "app"), f.env(k, 5))
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	for _, m := range manifestsOf(docs) {
		n += len(m)
	}
	return n
}

// heapMiB is the heap in use after a full collection.
func heapMiB() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / (1 << 20)
}

// BenchmarkShardRender is one shard's render (1 of 5, ≈ 2,000 children) of a 10,000-cluster
// fleet mid-rollout in the sidecar, from the informer's ConfigMaps to the response's
// manifests (no socket, no repository transfer). warm: the same state again (a refresh);
// per-generation: a new state generation every five renders, each shard rendering it once
// (the rollout's steady state: the agent writes, every touched shard re-renders); new-state:
// a new state for every render (the state decoded each time). kept-MiB is the heap the
// sidecar still holds after the renders (its caches: decoded state and inventory, compiled
// revisions and their parameters), over the fixture's.
func BenchmarkShardRender(b *testing.B) {
	n := 10000
	if testing.Short() {
		n = 2000
	}
	for _, mode := range []string{"warm", "per-generation", "new-state"} {
		b.Run(fmt.Sprintf("clusters=%d/%s", n, mode), func(b *testing.B) {
			f := newFleetBench(b, n)
			base := heapMiB()
			f.renderShard(b, 1)
			rv, size := 2, 0
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				k := 1
				switch mode {
				case "per-generation":
					k = i % 5
					if k == 0 {
						f.putState(b, rv, rv)
						rv++
					}
				case "new-state":
					f.putState(b, rv, rv)
					rv++
				}
				size = f.renderShard(b, k)
			}
			b.StopTimer()
			b.ReportMetric(heapMiB()-base, "kept-MiB")
			b.ReportMetric(float64(size), "bytes/render")
			runtime.KeepAlive(f)
		})
	}
}

// benchStore is the sidecar's store over an indexer the benchmark fills.
func benchStore(idx cache.Indexer) *InformerStore {
	l := listers.NewConfigMapLister(idx).ConfigMaps(contract.DefaultNamespace)
	return newStore(contract.DefaultNamespace, l, l, l)
}

// renderAll renders every shard of 5 with srv, joined.
func (f *fleetBench) renderAll(t *testing.T, srv *Server) []string {
	t.Helper()
	var out []string
	for k := range 5 {
		docs, err := srv.render(context.Background(), f.root, filepath.Join(f.root, "fleet", "app"), f.env(k, 5))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, manifestsOf(docs)...)
	}
	return out
}

// TestMemoisedRenderIsTheColdOne: a sidecar that keeps decoded states, inventories,
// compiled revisions and parameters across renders answers byte for byte as one that
// starts cold for each render — again after the state changes and after the inventory
// changes (both change the output, so nothing stale is served).
func TestMemoisedRenderIsTheColdOne(t *testing.T) {
	f := newFleetBench(t, 300)
	warm := f.srv
	cold := func() *Server {
		return New(warm.opts, newStore(contract.DefaultNamespace, f.lister(), f.lister(), f.lister()), warm.log)
	}
	check := func(step string) []string {
		t.Helper()
		got := f.renderAll(t, warm)
		if again := f.renderAll(t, warm); !slices.Equal(got, again) {
			t.Fatalf("%s: two warm renders differ", step)
		}
		if want := f.renderAll(t, cold()); !slices.Equal(got, want) {
			t.Fatalf("%s: the warm render differs from the cold one", step)
		}
		return got
	}
	first := check("first")
	f.putState(t, 1, 2) // the next generation admits more children
	second := check("a new state")
	if slices.Equal(first, second) {
		t.Fatal("the new state changed nothing: the test proves nothing")
	}
	inv := fleetInventory(300)
	inv.Clusters[0].Server = "https://moved.k8s.example.com"
	f.putInventory(t, inv, "2")
	third := check("a new inventory")
	if slices.Equal(second, third) {
		t.Fatal("the new inventory changed nothing: the test proves nothing")
	}
}

func (f *fleetBench) lister() listers.ConfigMapNamespaceLister {
	return listers.NewConfigMapLister(f.idx).ConfigMaps(contract.DefaultNamespace)
}
