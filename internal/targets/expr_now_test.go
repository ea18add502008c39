package targets

import (
	"strings"
	"testing"
)

// TestAnExpressionCannotReadTheTime: now() would move a cluster between phases from one
// render to the next; target and key expressions refuse it, with the fix.
func TestAnExpressionCannotReadTheTime(t *testing.T) {
	for _, src := range []string{`string(now()) == name`, `now().Second() % 2 == 0`} {
		_, err := NewCache(1).Compile(src)
		if err == nil || !strings.Contains(Fix(err), "must not change with the time") {
			t.Errorf("%s: %v", src, err)
		}
	}
	if _, err := NewCache(1).CompileKey(`now().Unix()`); err == nil {
		t.Error("a key expression reads the time")
	}
}
