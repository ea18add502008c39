package plan

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// MaxBytes bounds the plan ConfigMap.
const MaxBytes = 900 << 10

// Object is the plan ConfigMap, as the renderer writes it (a sharded parent renames it and
// adds its shard's annotations before Encode).
func (p *Plan) Object() (map[string]any, error) {
	data, err := p.data()
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{
			"name": contract.PlanConfigMap(p.Rollout), "namespace": p.Namespace,
			"labels": map[string]string{contract.LabelPlan: contract.MarkerValue, contract.LabelRollout: p.Rollout},
			"annotations": map[string]string{contract.AnnotationGeneration: strconv.FormatInt(p.Generation, 10),
				contract.AnnotationSyncOptions: contract.PlanSyncOptions, contract.AnnotationParent: p.Parent},
		},
		"data": data,
	}, nil
}

// Encode is obj (an Object) as the manifest the renderer prints, refused over MaxBytes.
func Encode(obj map[string]any) ([]byte, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode plan: %w", err)
	}
	if len(b) > MaxBytes {
		return nil, fmt.Errorf("plan is %d bytes, over the limit of %d (fix: move large list generator elements into cluster labels)", len(b), MaxBytes)
	}
	return b, nil
}

// data is the ConfigMap's data: the phases document and the keys beside it.
func (p *Plan) data() (map[string]string, error) {
	data := map[string]string{contract.PlanSpecKey: string(p.Body), contract.PlanRevisionKey: p.Revision}
	add := func(key string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encode plan %s: %w", key, err)
		}
		data[key] = string(b)
		return nil
	}
	if err := add(contract.PlanPhasesKey, p); err != nil {
		return nil, err
	}
	if p.Children != nil {
		if err := add(contract.PlanChildrenKey, p.Children); err != nil {
			return nil, err
		}
	}
	if len(p.Unphased) > 0 {
		if err := add(contract.PlanUnphasedKey, Bound(p.Unphased)); err != nil {
			return nil, err
		}
	}
	if len(p.LeftOut) > 0 {
		if err := add(contract.PlanLeftOutKey, BoundLeftOut(p.LeftOut)); err != nil {
			return nil, err
		}
	}
	if others := maps.Clone(p.Others); len(others) > 0 {
		delete(others, p.Revision)
		if len(others) > 0 {
			if err := add(contract.PlanRevisionsKey, others); err != nil {
				return nil, err
			}
		}
	}
	return data, nil
}

// Bounds of what the plan (and from it the state) says is not phased: the state is one
// ConfigMap of at most 1 MiB, and a fleet of 10,000 children deploying an image by tag
// must not fill it. Past the bound, one entry says how many more children there are.
const (
	maxUnphasedBytes = 32 << 10
	maxUnphasedEntry = 512
	// UnphasedMore is the key of the entry that counts the children left out.
	UnphasedMore = "…"
)

// Bound is unphased cut to maxUnphasedBytes in child name order, each value to
// maxUnphasedEntry bytes.
func Bound(unphased map[string]string) map[string]string {
	return bound(unphased, "%d more children not phased (see cmp-phase status -o json of a smaller fleet, or the sources named above)")
}

// BoundLeftOut is leftOut cut as Bound cuts.
func BoundLeftOut(leftOut map[string]string) map[string]string {
	return bound(leftOut, "%d more children left out (see cmp-phase plan for each one's reason)")
}

// bound cuts m as Bound says; more counts the children past the bound.
func bound(unphased map[string]string, more string) map[string]string {
	out, size := map[string]string{}, 0
	keys := slices.Sorted(maps.Keys(unphased))
	for i, k := range keys {
		v := unphased[k]
		if len(v) > maxUnphasedEntry {
			v = strings.ToValidUTF8(v[:maxUnphasedEntry], "") + "…"
		}
		if size += len(k) + len(v); size > maxUnphasedBytes {
			out[UnphasedMore] = fmt.Sprintf(more, len(keys)-i)
			break
		}
		out[k] = v
	}
	return out
}
