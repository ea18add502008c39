package shard

import (
	"fmt"
	"hash/fnv"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Shard
		err  bool
	}{
		{"", Shard{}, false},
		{" 0/1 ", Shard{0, 1}, false},
		{"2/3", Shard{2, 3}, false},
		{"3/3", Shard{}, true},
		{"-1/3", Shard{}, true},
		{"0/0", Shard{}, true},
		{"1/257", Shard{}, true},
		{"1", Shard{}, true},
		{"a/3", Shard{}, true},
		{"1/b", Shard{}, true},
		{"1/3/4", Shard{}, true},
	} {
		got, err := Parse(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("Parse(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.err)
		}
	}
}

func TestStringRoundTrips(t *testing.T) {
	for _, s := range []Shard{{}, {0, 1}, {4, 5}} {
		got, err := Parse(s.String())
		if err != nil || got != s {
			t.Errorf("Parse(%q) = %v, %v; want %v", s.String(), got, err, s)
		}
	}
}

// TestSpread: 10,000 names over 5 shards, each within ±10 % of 2,000.
func TestSpread(t *testing.T) {
	count := make([]int, 5)
	for i := range 10000 {
		count[Of(fmt.Sprintf("guestbook-cluster-%05d", i), 5)]++
	}
	for k, c := range count {
		if c < 1800 || c > 2200 {
			t.Errorf("shard %d has %d of 10000 names, want 2000 ± 10 %%", k, c)
		}
	}
}

// TestStable: a name's shard depends on its name alone: adding and removing other names
// never moves it, and it is the same on every call.
func TestStable(t *testing.T) {
	names := func(from, to int) []string {
		var out []string
		for i := from; i < to; i++ {
			out = append(out, fmt.Sprintf("c-%d", i))
		}
		return out
	}
	before := map[string]int{}
	for _, n := range names(0, 1000) {
		before[n] = Of(n, 5)
	}
	// a fleet where half left and as many joined: every remaining name keeps its shard
	for _, n := range append(names(500, 1000), names(1000, 1500)...) {
		if b, ok := before[n]; ok && Of(n, 5) != b {
			t.Fatalf("%s moved from shard %d to %d", n, b, Of(n, 5))
		}
	}
	// pinned values: a change of the hash moves children between parents on upgrade
	for _, c := range []struct {
		name    string
		n, want int
	}{{"guestbook-in-cluster", 3, 2}, {"app-prod-eu-1", 5, 2}, {"anything", 1, 0}} {
		if got := Of(c.name, c.n); got != c.want {
			t.Errorf("Of(%q, %d) = %d, want %d", c.name, c.n, got, c.want)
		}
	}
}

func TestOwnsIsDisjointAndCovering(t *testing.T) {
	for i := range 300 {
		name := fmt.Sprintf("child-%d", i)
		owners := 0
		for k := range 3 {
			if (Shard{K: k, N: 3}).Owns(name) {
				owners++
			}
		}
		if owners != 1 {
			t.Fatalf("%s owned by %d of 3 shards", name, owners)
		}
		if !(Shard{}).Owns(name) {
			t.Fatalf("unsharded does not own %s", name)
		}
	}
}

// TestOfIsFNV64a: the shard is hash/fnv's 64-bit FNV-1a of the name mod N, as it always
// was (a child never changes shard with a new cmp-phase).
func TestOfIsFNV64a(t *testing.T) {
	for _, name := range []string{"", "a", "guestbook-prod-1", "fleet-prod-eu-west-1-00042", "ünïcode-名前", string([]byte{0, 255, 128})} {
		h := fnv.New64a()
		_, _ = h.Write([]byte(name))
		for _, n := range []int{2, 3, 5, 7, Max} {
			if got, want := Of(name, n), int(h.Sum64()%uint64(n)); got != want {
				t.Errorf("Of(%q, %d) = %d, hash/fnv says %d", name, n, got, want)
			}
		}
	}
}

func BenchmarkOf(b *testing.B) {
	for b.Loop() {
		_ = Of("fleet-prod-eu-west-1-00042", 5)
	}
}
