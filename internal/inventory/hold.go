package inventory

import (
	"slices"
	"strings"
	"time"
)

// Hold is the inventory to publish given the clusters registered now (cur) and the one
// published before (prev, nil at first): a cluster gone from cur stays, marked AbsentSince
// (kept from prev, or now when first seen gone), until grace has passed since it went; one
// that is back loses the mark. It returns the clusters first seen gone now, and when the
// next held cluster's grace ends (zero: none held). Pure: time is passed in.
func Hold(prev, cur *Inventory, now time.Time, grace time.Duration) (out *Inventory, gone []string, next time.Time) {
	out = &Inventory{Clusters: slices.Clone(cur.Clusters)}
	if prev == nil {
		return out, nil, next
	}
	present := map[string]bool{}
	for _, c := range cur.Clusters {
		present[c.Name] = true
	}
	for _, c := range prev.Clusters {
		if present[c.Name] {
			continue
		}
		if c.AbsentSince == nil {
			since := now
			c.AbsentSince, gone = &since, append(gone, c.Name)
		}
		end := c.AbsentSince.Add(grace)
		if !now.Add(together(grace)).Before(end) {
			continue // gone for (about) the grace: it leaves
		}
		out.Clusters = append(out.Clusters, c)
		if next.IsZero() || end.Before(next) {
			next = end
		}
	}
	slices.SortFunc(out.Clusters, func(a, b Cluster) int { return strings.Compare(a.Name, b.Name) })
	return out, gone, next
}

// together is how close the ends of two clusters' grace may be for them to leave at once:
// clusters that went together are removed together, latest phase first, rather than in
// the order their Secrets happened to disappear.
func together(grace time.Duration) time.Duration {
	return min(grace/10, 5*time.Second)
}

// Absent reports whether the cluster's Secret is gone (held for its grace period).
func (c *Cluster) Absent() bool { return c.AbsentSince != nil }
