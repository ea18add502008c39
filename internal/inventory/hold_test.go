package inventory

import (
	"testing"
	"time"
)

func names(inv *Inventory) (out []string) {
	for _, c := range inv.Clusters {
		mark := ""
		if c.Absent() {
			mark = "*"
		}
		out = append(out, c.Name+mark)
	}
	return out
}

// TestHoldKeepsAVanishedClusterForItsGrace: a cluster whose Secret disappears stays (marked)
// until the grace has passed since it went; one that comes back within it is as before.
func TestHoldKeepsAVanishedClusterForItsGrace(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	all := &Inventory{Clusters: []Cluster{{Name: "a", Server: "https://a"}, {Name: "b", Server: "https://b"}}}
	onlyA := &Inventory{Clusters: []Cluster{{Name: "a", Server: "https://a"}}}
	grace := 10 * time.Minute

	first, gone, _ := Hold(nil, all, t0, grace)
	if len(gone) != 0 || len(first.Clusters) != 2 {
		t.Fatalf("first publish: %v %v", names(first), gone)
	}
	held, gone, next := Hold(first, onlyA, t0, grace)
	if got := names(held); len(got) != 2 || got[1] != "b*" || len(gone) != 1 || gone[0] != "b" || !next.Equal(t0.Add(grace)) {
		t.Fatalf("b is held, marked, reported once, until t0+grace: %v %v %v", got, gone, next)
	}
	later, gone, _ := Hold(held, onlyA, t0.Add(9*time.Minute), grace)
	if got := names(later); len(got) != 2 || got[1] != "b*" || len(gone) != 0 || !later.Clusters[1].AbsentSince.Equal(t0) {
		t.Fatalf("still held, since t0, not reported again: %v %v", got, gone)
	}
	back, _, next := Hold(later, all, t0.Add(9*time.Minute), grace)
	if got := names(back); len(got) != 2 || got[1] != "b" || !next.IsZero() {
		t.Fatalf("back within the grace: unmarked: %v", got)
	}
	done, _, next := Hold(later, onlyA, t0.Add(grace), grace)
	if got := names(done); len(got) != 1 || !next.IsZero() {
		t.Fatalf("gone for the grace: it leaves: %v", got)
	}
}

// TestClustersThatWentTogetherLeaveTogether: two Secrets deleted a moment apart leave at once.
func TestClustersThatWentTogetherLeaveTogether(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	all := &Inventory{Clusters: []Cluster{{Name: "a", Server: "https://a"}, {Name: "b", Server: "https://b"}, {Name: "c", Server: "https://c"}}}
	held, _, _ := Hold(all, &Inventory{Clusters: all.Clusters[1:]}, t0, time.Minute)
	held, _, _ = Hold(held, &Inventory{Clusters: all.Clusters[2:]}, t0.Add(10*time.Millisecond), time.Minute)
	out, _, _ := Hold(held, &Inventory{Clusters: all.Clusters[2:]}, t0.Add(time.Minute), time.Minute)
	if got := names(out); len(got) != 1 || got[0] != "c" {
		t.Fatalf("a and b leave together: %v", got)
	}
}
