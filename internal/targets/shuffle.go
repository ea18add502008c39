package targets

import (
	"fmt"
	"hash/fnv"
)

// Shuffle is the order keyword of a seeded shuffle: `order: shuffle` lines a phase's
// members up by ShuffleExpr, a hash of the rollout's seed and the cluster's name. The same
// revision always gives the same order (so the same canaries); a new revision another.
const (
	Shuffle     = "shuffle"
	ShuffleExpr = `hash(seed + "/" + name)`
)

// fnHash is the expression function hash(s): a number in [0, 2^53) from s, the same on
// every platform and at every render (FNV-1a, 64 bits, cut to what a float64 holds
// exactly). With seed it shuffles (`hash(seed + name) % 10 == 0`, about a tenth of the
// fleet, others each revision); with a literal it picks a fixed sample across revisions
// (`hash("2026-q4" + name) % 10 == 0`).
const fnHash = "hash"

func hashFn(args ...any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("hash takes a string, not %T", args[0])
	}
	h := fnv.New64a()
	h.Write([]byte(s))
	return int(h.Sum64() & (1<<53 - 1)), nil
}
