package state

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/jsoncost"
)

// hostile is a state document of about size bytes shaped to cost the most to decode:
// empty objects in the state's lists of structs, values of the wrong type, map entries.
func hostile(shape string, size int) string {
	head := `{"schema":1,"generation":1,`
	switch shape {
	case "rollout-phases":
		return head + `"rollout":{"phases":[` + repeated(`{}`, size/3) + `]}}`
	case "history":
		return head + `"rollout":{"history":[` + repeated(`{}`, size/3) + `]}}`
	case "tracks":
		return head + `"rollout":{"tracks":[` + repeated(`{}`, size/3) + `]}}`
	case "values":
		return head + `"rollout":{"phases":[{"members":[` + repeated(`1`, size/2) + `]}]}}`
	case "children":
		return head + `"children":[` + repeated(`""`, size/3) + `]}`
	case "clusters":
		return head + `"rollout":{"phases":[{"clusters":{` + entries(size/12, `{}`) + `}}]}}`
	case "afterDelete":
		return head + `"afterDelete":{` + entries(size/12, `{}`) + `}}`
	case "pinned":
		return head + `"pinned":{` + entries(size/10, `""`) + `}}`
	case "revisions":
		return head + `"revisions":{"r":[` + repeated(`{}`, size/3) + `]}}`
	}
	panic("no shape " + shape)
}

func repeated(item string, n int) string {
	return strings.TrimSuffix(strings.Repeat(item+",", n), ",")
}

// entries is n object entries with distinct keys, each value v.
func entries(n int, v string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", strconv.FormatInt(int64(i), 36), v)
	}
	return b.String()
}

// allocated is what f allocates, in bytes.
func allocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

var shapes = []string{"rollout-phases", "history", "tracks", "values", "children", "clusters", "afterDelete", "pinned", "revisions"}

// TestCostBoundsWhatDecodingAllocates: for every hostile shape, decoding allocates no
// more than jsoncost.CostRaw says (measured; the revisions' bodies stay raw), so refusing
// over MaxDecodeCost bounds it.
func TestCostBoundsWhatDecodingAllocates(t *testing.T) {
	for _, shape := range shapes {
		raw := []byte(hostile(shape, 1<<20))
		got := allocated(func() { _, _ = decodeStrict(raw) })
		if cost := jsoncost.CostRaw(raw, revisionsKey, true); int64(got) > cost {
			t.Errorf("%s: decoding allocated %d KiB, over its cost %d KiB", shape, got>>10, cost>>10)
		}
	}
}

// TestDecodingAHostileStateIsBoundedInMemory: issue 47's 58 KB state took 1.17 GB to
// decode. Each hostile state, gzip'd as it would sit in the ConfigMap, is refused having
// allocated at most the inflated document and its scan (but revisions' bodies, which stay
// raw: decoded within their bytes' cost); and one at the largest inflated size this build
// decodes allocates at most MaxDecodeCost.
func TestDecodingAHostileStateIsBoundedInMemory(t *testing.T) {
	for _, shape := range shapes {
		z := gz(hostile(shape, MaxInflated-1024))
		var err error
		got := allocated(func() { _, err = Decode(z) })
		if shape == "revisions" { // kept raw, decoded within its cost: the render weighs the body
			if limit := uint64(jsoncost.PerByte * MaxInflated); got > limit {
				t.Errorf("%s: decoding it allocated %d MiB, over %d MiB", shape, got>>20, limit>>20)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "to decode") && !strings.Contains(err.Error(), "over the ConfigMap limit") {
			t.Errorf("%s (%d bytes gzip'd): want a refusal over the decode or the ConfigMap limit, got %v", shape, len(z), err)
		}
		if limit := uint64(2*MaxInflated + 1<<20); got > limit {
			t.Errorf("%s: refusing it allocated %d MiB, over %d MiB", shape, got>>20, limit>>20)
		}
	}
	near := gz(hostile("rollout-phases", int(MaxDecodeCost/jsoncost.PerObjectInArray)*3-4096))
	if got := allocated(func() { _, _ = Decode(near) }); got > MaxDecodeCost {
		t.Errorf("a state just within the limit allocated %d MiB, over %d MiB", got>>20, MaxDecodeCost>>20)
	}
}
