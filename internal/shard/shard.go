package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// Max bounds N: far more parents than any fleet needs, small enough to refuse a typo.
const Max = 256

// Shard is one parent's part of a rollout: K of N. The zero value is unsharded (the parent
// renders every child).
type Shard struct {
	K, N int
}

// Sharded reports whether s is a part of a sharded rollout (N ≥ 1).
func (s Shard) Sharded() bool { return s.N > 0 }

// String is s as the env spells it ("k/N"), "" when unsharded.
func (s Shard) String() string {
	if !s.Sharded() {
		return ""
	}
	return strconv.Itoa(s.K) + "/" + strconv.Itoa(s.N)
}

// Owns reports whether child belongs to s; an unsharded s owns every child.
func (s Shard) Owns(child string) bool {
	return !s.Sharded() || Of(child, s.N) == s.K
}

// Of is the shard of child among n (n ≥ 1): fnv64a of its name mod n. It depends on the
// name alone, never on the other children.
func Of(child string, n int) int {
	if n <= 1 {
		return 0
	}
	return int(fnv64a(child) % uint64(n))
}

// FNV-1a's 64-bit parameters (hash/fnv's).
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// fnv64a is hash/fnv's New64a sum of s, without its allocations: renders and the agent
// ask for the shard of every child of a fleet.
func fnv64a(s string) uint64 {
	h := uint64(fnvOffset64)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime64
	}
	return h
}

// Parse reads "k/N" (0 ≤ k < N ≤ Max); "" is unsharded. The error says what is wrong,
// without naming where the value came from (the caller does).
func Parse(v string) (Shard, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return Shard{}, nil
	}
	ks, ns, ok := strings.Cut(v, "/")
	if !ok {
		return Shard{}, fmt.Errorf("%q is not k/N (e.g. 0/3)", v)
	}
	k, kerr := strconv.Atoi(ks)
	n, nerr := strconv.Atoi(ns)
	switch {
	case kerr != nil || nerr != nil:
		return Shard{}, fmt.Errorf("%q is not k/N with integers (e.g. 0/3)", v)
	case n < 1 || n > Max:
		return Shard{}, fmt.Errorf("%q: N must be 1 to %d", v, Max)
	case k < 0 || k >= n:
		return Shard{}, fmt.Errorf("%q: k must be 0 to %d (N-1)", v, n-1)
	}
	return Shard{K: k, N: n}, nil
}
