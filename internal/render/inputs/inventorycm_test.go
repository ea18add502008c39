package inputs

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
)

// fleet is an inventory as the agent publishes it: every label of the cluster Secret.
func fleet(n int) *inventory.Inventory {
	inv := &inventory.Inventory{}
	for i := range n {
		region := []string{"eu-west-1", "us-east-1", "ap-south-1"}[i%3]
		inv.Clusters = append(inv.Clusters, inventory.Cluster{
			Name: fmt.Sprintf("prod-%s-%05d", region, i), Server: fmt.Sprintf("https://k8s-%05d.%s.example.com:6443", i, region),
			Labels: map[string]string{contract.LabelSecretType: contract.SecretTypeCluster, "env": "prod", "region": region},
		})
	}
	return inv
}

func TestInventoryConfigMapRoundTrips(t *testing.T) {
	for _, n := range []int{0, 3, 10000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			b, err := fleet(n).Encode()
			if err != nil {
				t.Fatal(err)
			}
			data, binary, err := InventoryData(b)
			if err != nil {
				t.Fatal(err)
			}
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cmp-phase-inventory", Namespace: "argocd"}, Data: data, BinaryData: binary}
			size := len(data[contract.InventoryKey]) + len(binary[contract.InventoryGzipKey])
			t.Logf("%d clusters: %d bytes of JSON, %d in the ConfigMap", n, len(b), size)
			if gz := len(b) > PlainInventoryMax; gz != (binary != nil) || gz == (data != nil) {
				t.Fatalf("%d bytes: want gzip %v, got data %v binary %v", len(b), gz, data != nil, binary != nil)
			}
			if size > 900<<10 {
				t.Fatalf("%d bytes in the ConfigMap: over what it may hold", size)
			}
			inv, err := InventoryFromConfigMap(cm)
			if err != nil || len(inv.Clusters) != n {
				t.Fatalf("decoded %v clusters, err %v", inv, err)
			}
			dataAgain, binAgain, _ := InventoryData(b)
			if !bytes.Equal(binAgain[contract.InventoryGzipKey], binary[contract.InventoryGzipKey]) || dataAgain[contract.InventoryKey] != data[contract.InventoryKey] {
				t.Fatal("the same inventory encodes to different bytes: the agent would rewrite it on every pass")
			}
		})
	}
}

func TestInventoryConfigMapRefusesWhatItCannotTrust(t *testing.T) {
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	_, _ = zw.Write(bytes.Repeat([]byte(" "), inventory.MaxSize+10))
	_ = zw.Close()
	cases := map[string]struct {
		binary map[string][]byte
		data   map[string]string
		want   string
	}{
		"no key":      {nil, map[string]string{"x": "{}"}, "has no key clusters.json"},
		"not gzip":    {map[string][]byte{contract.InventoryGzipKey: []byte("plain")}, nil, "not gzip"},
		"a gzip bomb": {map[string][]byte{contract.InventoryGzipKey: bomb.Bytes()}, nil, "over the limit"},
		"corrupt":     {nil, map[string]string{contract.InventoryKey: `{"clusters":[{"name":""}]}`}, "name and server are required"},
		// issue 47: what a document's bytes cost to decode, not only its size.
		"a gzip bomb of empty clusters":  {map[string][]byte{contract.InventoryGzipKey: gzipped(emptyClusters(1 << 20))}, nil, "to decode, over the limit of 256 MiB"},
		"a plain bomb of empty clusters": {nil, map[string]string{contract.InventoryKey: string(emptyClusters(300000))}, "to decode, over the limit of 256 MiB"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "inv", Namespace: "argocd"}, Data: c.data, BinaryData: c.binary}
			_, err := InventoryFromConfigMap(cm)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want %q, got %v", c.want, err)
			}
		})
	}
}

// emptyClusters is an inventory of n empty clusters: 3 bytes each that would decode into a
// Cluster struct each.
func emptyClusters(n int) []byte {
	return []byte(`{"clusters":[` + strings.Repeat(`{},`, n) + `{}]}`)
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}
