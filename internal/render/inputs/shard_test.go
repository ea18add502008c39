package inputs

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/shard"
)

// TestEnvShard: the parent's plugin env SHARD reaches the render as ARGOCD_ENV_SHARD; a bad
// one is an error naming the env and the fix; none renders every child, as before.
func TestEnvShard(t *testing.T) {
	for _, c := range []struct {
		value string
		set   bool
		want  shard.Shard
		err   string
	}{
		{set: false, want: shard.Shard{}},
		{value: "", set: true, want: shard.Shard{}},
		{value: "1/3", set: true, want: shard.Shard{K: 1, N: 3}},
		{value: "3/3", set: true, err: "ARGOCD_ENV_SHARD"},
		{value: "one", set: true, err: "fix: set the parent's plugin env SHARD to k/N"},
	} {
		lookup := func(k string) (string, bool) {
			if k == "ARGOCD_ENV_SHARD" && c.set {
				return c.value, true
			}
			return "", false
		}
		env, err := Env(lookup, "argocd")
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("SHARD=%q: error %v, want one with %q", c.value, err, c.err)
		case c.err == "" && (err != nil || env.Shard != c.want):
			t.Errorf("SHARD=%q: %v, %v; want %v", c.value, env.Shard, err, c.want)
		}
	}
}
