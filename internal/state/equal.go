package state

import (
	"maps"
	"reflect"
	"slices"
)

// Equal is reflect.DeepEqual(a, b), with the parts that grow with the fleet — the deployed
// children, the pins, each phase's members, admissions and clusters — compared by type
// rather than by reflection. The engine compares a whole state twice a pass to tell
// whether it must write; at 10,000 children reflection did so in more time than every
// decision besides (it copied each cluster's entry out of its map to compare it).
// Everything else is still compared by reflect.DeepEqual, so a field added later is never
// left out.
func Equal(a, b *State) bool {
	if a == nil || b == nil {
		return a == b
	}
	if !sameStrings(a.Children, b.Children) || !sameMap(a.Pinned, b.Pinned) || !rolloutEqual(a.Rollout, b.Rollout) {
		return false
	}
	x, y := *a, *b
	x.Children, y.Children, x.Pinned, y.Pinned, x.Rollout, y.Rollout = nil, nil, nil, nil, nil, nil
	return reflect.DeepEqual(x, y)
}

func rolloutEqual(a, b *Rollout) bool {
	if a == nil || b == nil {
		return a == b
	}
	if (a.Phases == nil) != (b.Phases == nil) || len(a.Phases) != len(b.Phases) {
		return false
	}
	for i := range a.Phases {
		if !phaseEqual(&a.Phases[i], &b.Phases[i]) {
			return false
		}
	}
	x, y := *a, *b
	x.Phases, y.Phases = nil, nil
	return reflect.DeepEqual(x, y)
}

func phaseEqual(a, b *PhaseState) bool {
	if !sameStrings(a.Members, b.Members) || !sameStrings(a.Admitted, b.Admitted) || !sameClusters(a.Clusters, b.Clusters) {
		return false
	}
	x, y := *a, *b
	x.Members, y.Members, x.Admitted, y.Admitted, x.Clusters, y.Clusters = nil, nil, nil, nil, nil, nil
	return reflect.DeepEqual(x, y)
}

// sameStrings is reflect.DeepEqual of two string slices: nil differs from empty.
func sameStrings(a, b []string) bool {
	return (a == nil) == (b == nil) && slices.Equal(a, b)
}

// sameMap is reflect.DeepEqual of two string maps: nil differs from empty.
func sameMap(a, b map[string]string) bool {
	return (a == nil) == (b == nil) && maps.Equal(a, b)
}

// sameClusters is reflect.DeepEqual of two cluster maps. Two entries equal by == are
// deeply equal; entries that are not (a time in another location) are asked of reflection.
func sameClusters(a, b map[string]ClusterState) bool {
	return (a == nil) == (b == nil) && maps.EqualFunc(a, b, func(x, y ClusterState) bool {
		return x == y || reflect.DeepEqual(x, y)
	})
}
