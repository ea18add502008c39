package inventory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/jsoncost"
)

// MaxSize bounds an encoded inventory.
const MaxSize = 4 << 20

// MaxDecodeCost bounds what decoding an inventory may allocate (jsoncost.Cost), checked
// before it is decoded: 64× MaxSize, as an inventory of MaxSize of real clusters (their
// labels and annotations) weighs up to ≈ 130 MiB, and 4 MiB of `{},` would weigh 2.7 GiB.
const MaxDecodeCost = 64 * MaxSize

// Cluster is one Argo CD cluster as the ApplicationSet clusters generator sees it.
type Cluster struct {
	Name        string            `json:"name"`
	Server      string            `json:"server"`
	Project     string            `json:"project,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	// AbsentSince is when the agent first saw the cluster's Secret gone: it keeps the
	// cluster for a grace period (Hold), so its children render as they were and nobody
	// removes them on one watch event.
	AbsentSince *time.Time `json:"absentSince,omitempty"`
}

// Inventory is every known cluster, sorted by name.
type Inventory struct {
	Clusters []Cluster `json:"clusters"`
}

// Decode parses and validates an inventory; source names it in errors.
func Decode(source string, b []byte) (*Inventory, error) {
	if len(b) > MaxSize {
		return nil, fmt.Errorf("inventory %s: %d bytes, over the limit of %d", source, len(b), MaxSize)
	}
	if err := jsoncost.Check(b, MaxDecodeCost); err != nil {
		return nil, fmt.Errorf("inventory %s: %w (fix: the agent rewrites it; for a file, list fewer clusters)", source, err)
	}
	var inv Inventory
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&inv); err != nil {
		return nil, fmt.Errorf("inventory %s: %w (fix: the agent rewrites it; for a file, write {\"clusters\":[{\"name\":..,\"server\":..}]})", source, err)
	}
	seen := map[string]bool{}
	for i, c := range inv.Clusters {
		if c.Name == "" || c.Server == "" {
			return nil, fmt.Errorf("inventory %s: clusters[%d]: name and server are required", source, i)
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("inventory %s: clusters[%d]: duplicate name %q", source, i, c.Name)
		}
		seen[c.Name] = true
	}
	slices.SortFunc(inv.Clusters, func(a, b Cluster) int { return strings.Compare(a.Name, b.Name) })
	return &inv, nil
}

// Encode writes the inventory in its canonical form.
func (inv *Inventory) Encode() ([]byte, error) {
	b, err := json.Marshal(inv)
	if err != nil {
		return nil, fmt.Errorf("encode inventory: %w", err)
	}
	return b, nil
}
