package rollout

import (
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

func pct(p int) spec.Size   { return spec.Size{Kind: spec.SizePercent, Value: p} }
func count(c int) spec.Size { return spec.Size{Kind: spec.SizeCount, Value: c} }

func TestCountRounding(t *testing.T) {
	cases := []struct {
		name    string
		size    spec.Size
		members int
		want    int
	}{
		{"10% of 1 member admits the one (minimum 1)", pct(10), 1, 1},
		{"10% of 3 members admits 1", pct(10), 3, 1},
		{"50% of 3 members floors to 1", pct(50), 3, 1},
		{"10% of 10 members admits 1", pct(10), 10, 1},
		{"25% of 10 members floors to 2", pct(25), 10, 2},
		{"10% of 1000 members admits 100", pct(10), 1000, 100},
		{"1% of 1000 members admits 10", pct(1), 1000, 10},
		{"99% of 1000 members floors to 990", pct(99), 1000, 990},
		{"any percentage of no members is none", pct(50), 0, 0},
		{"a count above the members is capped", count(5), 3, 3},
		{"a count admits that many", count(2), 10, 2},
		{"no bound admits everyone", spec.Size{Kind: spec.SizeAll}, 7, 7},
		{"a manual gate admits no one", spec.Size{Kind: spec.SizeCount, Gate: true}, 7, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Count(c.size, c.members); got != c.want {
				t.Fatalf("Count(%+v, %d) = %d, want %d", c.size, c.members, got, c.want)
			}
		})
	}
}
