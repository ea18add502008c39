package inputs

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
)

// PlainInventoryMax is the largest inventory kept as JSON text in its ConfigMap; a larger
// one is stored gzip'd. Small fleets stay readable with kubectl (and by sidecars that
// predate the gzip'd form); a fleet of 10,000 clusters is ≈ 2 MB of JSON, twice what a
// ConfigMap may hold, and ≈ 10% of that gzip'd.
const PlainInventoryMax = 256 << 10

// InventoryData is how an encoded inventory is stored in its ConfigMap: as text under
// contract.InventoryKey up to PlainInventoryMax, else gzip'd under contract.InventoryGzipKey
// in binaryData. Exactly one of the two maps is non-nil; equal inventories give equal bytes.
func InventoryData(b []byte) (map[string]string, map[string][]byte, error) {
	if len(b) <= PlainInventoryMax {
		return map[string]string{contract.InventoryKey: string(b)}, nil, nil
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, nil, fmt.Errorf("compress inventory: %w", err)
	}
	if _, err := zw.Write(b); err != nil {
		return nil, nil, fmt.Errorf("compress inventory: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, nil, fmt.Errorf("compress inventory: %w", err)
	}
	return nil, map[string][]byte{contract.InventoryGzipKey: buf.Bytes()}, nil
}

// InventoryFromConfigMap decodes the inventory ConfigMap the agent publishes, in either form.
func InventoryFromConfigMap(cm *corev1.ConfigMap) (*inventory.Inventory, error) {
	source := "configmap " + cm.Namespace + "/" + cm.Name
	if z, ok := cm.BinaryData[contract.InventoryGzipKey]; ok {
		b, err := gunzipInventory(z)
		if err != nil {
			return nil, fmt.Errorf("inventory %s: key %s: %w (fix: delete the ConfigMap; the agent publishes it again)", source, contract.InventoryGzipKey, err)
		}
		return inventory.Decode(source, b)
	}
	data, ok := cm.Data[contract.InventoryKey]
	if !ok {
		return nil, fmt.Errorf("configmap %s/%s has no key %s (fix: let the agent publish the inventory)", cm.Namespace, cm.Name, contract.InventoryKey)
	}
	return inventory.Decode(source, []byte(data))
}

// gunzipInventory inflates at most one byte past inventory.MaxSize, so Decode refuses an
// over-size inventory and a gzip bomb costs nothing.
func gunzipInventory(z []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, fmt.Errorf("not gzip: %w", err)
	}
	b, err := io.ReadAll(io.LimitReader(zr, inventory.MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("corrupt gzip: %w", err)
	}
	return b, nil
}
