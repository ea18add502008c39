package inventory

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// fleet is an inventory of clusters with the labels and annotations real fleets carry, as
// encoded, grown until it is just under size bytes.
func fleet(t *testing.T, size int) []byte {
	t.Helper()
	inv := &Inventory{}
	var b []byte
	for i := 0; ; i++ {
		c := Cluster{Name: fmt.Sprintf("payments-prod-eu-west-1-%05d", i), Server: fmt.Sprintf("https://10.%d.%d.1:6443", i/250%250, i%250), Project: "default",
			Labels: map[string]string{"env": "prod", "region": "eu-west-1", "tier": "1", "team": "payments", "argocd.argoproj.io/secret-type": "cluster",
				"zone": "a", "k8s": "1.30", "owner": "x"},
			Annotations: map[string]string{"a": "b", "c": "d", "e": "f", "g": "h"}}
		inv.Clusters = append(inv.Clusters, c)
		if i%1000 != 999 {
			continue
		}
		next, err := inv.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if len(next) > size {
			return b
		}
		b = next
	}
}

// TestAnInventoryCostsWhatItsClustersDoNotWhatItsBytesCouldHold: the largest inventory of
// real clusters decodes, allocating far less than its limit; one as large of empty clusters
// (3 bytes each, a Cluster struct each) is refused before it is decoded (issue 47).
func TestAnInventoryCostsWhatItsClustersDoNotWhatItsBytesCouldHold(t *testing.T) {
	real := fleet(t, MaxSize)
	var err error
	got := allocated(func() { _, err = Decode("test", real) })
	if err != nil {
		t.Fatalf("%d bytes of real clusters: %v", len(real), err)
	}
	if got > MaxDecodeCost/2 {
		t.Fatalf("%d bytes of real clusters allocated %d MiB", len(real), got>>20)
	}
	empty := []byte(`{"clusters":[` + strings.Repeat(`{},`, MaxSize/3-10) + `{}]}`)
	got = allocated(func() { _, err = Decode("test", empty) })
	if err == nil || !strings.Contains(err.Error(), "to decode, over the limit of 256 MiB") || !strings.Contains(err.Error(), "(fix: ") {
		t.Fatalf("empty clusters: %v", err)
	}
	if got > 1<<20 {
		t.Fatalf("refusing empty clusters allocated %d KiB", got>>10)
	}
}

// allocated is what f allocates, in bytes.
func allocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
