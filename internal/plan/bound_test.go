package plan

import (
	"fmt"
	"strings"
	"testing"
)

// TestWhatIsNotPhasedIsBounded: 10,000 children deploying an image by tag put at most
// maxUnphasedBytes in the plan, with one entry counting the rest.
func TestWhatIsNotPhasedIsBounded(t *testing.T) {
	m := map[string]string{}
	for i := range 10000 {
		m[fmt.Sprintf("web-cluster-%05d", i)] = "apps/web/kustomization.yaml: image web:1.2 (a tag can move; pin a digest)" + strings.Repeat("x", i%1000)
	}
	got := Bound(m)
	size := 0
	for k, v := range got {
		size += len(k) + len(v)
		if len(v) > maxUnphasedEntry+len("…") && k != UnphasedMore {
			t.Fatalf("%s: %d bytes", k, len(v))
		}
	}
	if size > maxUnphasedBytes+200 || !strings.Contains(got[UnphasedMore], "more children not phased") {
		t.Fatalf("%d bytes in %d entries, more: %q", size, len(got), got[UnphasedMore])
	}
}
