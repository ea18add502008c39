package status

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestALongChildNameKeepsTheColumnsInLine: a 51-character child name widens the name
// column for every row of the table (text/tabwriter's columns), so the STATUS column
// starts at one place on each, two spaces after the longest name.
func TestALongChildNameKeepsTheColumnsInLine(t *testing.T) {
	long := strings.Repeat("c", 51)
	st := sample()
	prod := &st.Rollout.Phases[1]
	prod.Members = append(prod.Members, long)
	prod.Admitted = append(prod.Admitted, long)
	prod.Clusters[long] = state.ClusterState{Status: state.ClusterWaiting, Reason: "syncing"}
	var b bytes.Buffer
	if err := Table(&b, Of("guestbook", st), time.Date(2026, 11, 22, 3, 0, 30, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	col := -1
	for _, l := range strings.Split(b.String(), "\n") {
		if !strings.HasPrefix(l, "  ") {
			continue
		}
		i := strings.IndexAny(l, "DWSE") // Done, Waiting, Succeeded: the STATUS column
		if i < 0 {
			continue
		}
		if col < 0 {
			col = i
		}
		if i != col {
			t.Fatalf("the status column moves (%d, then %d):\n%s", col, i, b.String())
		}
	}
	if col != 2+51+2 {
		t.Fatalf("the name column is %d wide, want 51 and two spaces:\n%s", col-2, b.String())
	}
}
