package rollout

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// arrange lines a phase's chosen members up for its batches, the order admission takes
// them in (and the membership snapshot records, so a label changing mid-rollout moves
// nobody): by the phase's order key, ties by child name; then, with a spread, one member
// per distinct spread value in turn (values in the order their first member comes), then a
// second of each, and so on. Without either, child-name order. A key that cannot be
// evaluated for a member, or order keys of both kinds, is an error naming them: never a
// silent order.
func arrange(o *targets.Ordering, chosen []targets.Child) ([]string, error) {
	if o.IsZero() {
		keys := make([]string, len(chosen))
		for i, c := range chosen {
			keys[i] = c.Key
		}
		slices.Sort(keys)
		return keys, nil
	}
	if !o.Compiled() {
		return nil, fmt.Errorf("order or spread not compiled (fix: let the parent re-render the plan)")
	}
	ms, err := keyed(o, chosen)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(ms, func(a, b keyedMember) int {
		return cmp.Or(a.order.Compare(b.order), cmp.Compare(a.key, b.key))
	})
	if o.Spread != "" {
		ms = roundRobin(ms)
	}
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.key
	}
	return out, nil
}

type keyedMember struct {
	key           string
	order, spread targets.Key
}

// keyed evaluates every member's keys, and refuses order keys of both kinds.
func keyed(o *targets.Ordering, chosen []targets.Child) ([]keyedMember, error) {
	ms := make([]keyedMember, len(chosen))
	for i, c := range chosen {
		order, spread, err := o.Keys(c.Subject)
		if err != nil {
			return nil, fmt.Errorf("child %s: %w", c.Key, err)
		}
		ms[i] = keyedMember{key: c.Key, order: order, spread: spread}
		if i > 0 && order.IsNum != ms[0].order.IsNum {
			num, str := ms[0].key, c.Key
			if !ms[0].order.IsNum {
				num, str = str, num
			}
			return nil, fmt.Errorf("order %q gives a number for %s and a string for %s (fix: make it give one kind for every cluster, e.g. string(...))", o.Order, num, str)
		}
	}
	return ms, nil
}

// roundRobin takes one member of each spread value in turn, values in the order of their
// first member, keeping the order within a value.
func roundRobin(ms []keyedMember) []keyedMember {
	var values []string
	groups := map[string][]keyedMember{}
	for _, m := range ms {
		v := spreadValue(m.spread)
		if _, seen := groups[v]; !seen {
			values = append(values, v)
		}
		groups[v] = append(groups[v], m)
	}
	out := make([]keyedMember, 0, len(ms))
	for round := 0; len(out) < len(ms); round++ {
		for _, v := range values {
			if g := groups[v]; round < len(g) {
				out = append(out, g[round])
			}
		}
	}
	return out
}

// spreadValue groups a spread key: a number and the string that spells it stay apart.
func spreadValue(k targets.Key) string {
	if k.IsNum {
		return "n:" + k.String()
	}
	return "s:" + k.Str
}

// joinMembers adds a late joiner to a phase that has not started: in key order when the
// phase keeps child-name order, else last (its snapshot's order was decided when the
// rollout started, and is not decided again).
func joinMembers(members []string, key string, byName bool) []string {
	if !byName {
		return append(members, key)
	}
	at, _ := slices.BinarySearch(members, key)
	return slices.Insert(members, at, key)
}
