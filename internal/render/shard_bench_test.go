package render_test

import (
	"bytes"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/shard"
)

// BenchmarkRenderShard: one shard of five of a 10,000-cluster fleet (≈ 2,000 children)
// against the unsharded render of 2,000 clusters, the sidecar's steady state. The shard
// must cost no more: it renders as many children and only filters the others out.
func BenchmarkRenderShard(b *testing.B) {
	for _, c := range []struct {
		name     string
		clusters int
		shard    shard.Shard
	}{{"unsharded-2000", 2000, shard.Shard{}}, {"shard-1of5-of-10000", 10000, shard.Shard{K: 1, N: 5}}} {
		bc := newBenchCase(b, c.clusters, false)
		b.Run(c.name, func(b *testing.B) {
			r := render.New(4)
			var out bytes.Buffer
			for b.Loop() {
				out.Reset()
				docs, err := r.Render(render.Input{Spec: bc.spec, Inventory: bc.inv, State: bc.st,
					Env: render.Env{PhaseGen: 9, StateNamespace: contract.DefaultNamespace, Shard: c.shard}})
				if err != nil {
					b.Fatal(err)
				}
				if err := render.WriteStream(&out, docs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(out.Len()), "bytes/render")
		})
	}
}
