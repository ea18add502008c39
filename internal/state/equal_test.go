package state

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

// equalFixture is a state with every kind of field Equal treats apart: children, pins, a
// rollout whose phases have members, admissions and clusters, and the rest.
func equalFixture(n int) *State {
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	children := make([]string, n)
	for i := range children {
		children[i] = fmt.Sprintf("c%05d", i)
	}
	ph := PhaseState{Name: "all", Status: PhaseAdmitting, Members: children, Admitted: children[:n/2], Clusters: map[string]ClusterState{}}
	for _, c := range children[:n/2] {
		ph.Clusters[c] = ClusterState{Status: ClusterDone, AdmittedAt: at, SettledAt: at.Add(time.Minute)}
	}
	st := &State{Schema: Schema, Generation: 7, Deployed: "r1", Children: children, Pinned: map[string]string{children[0]: "r0"},
		Rollout: &Rollout{Revision: "r2", Status: RolloutProgressing, StartedAt: at, Phases: []PhaseState{ph}}}
	st.Rollout.Record(at, "PhaseProgressing", "admitted")
	return st
}

// TestEqualIsDeepEqual: Equal says what reflect.DeepEqual says of a state and each one-field
// change of its clone — nil against empty, a time in another location, a change in a part
// compared by reflection — so the engine writes exactly when it did before.
func TestEqualIsDeepEqual(t *testing.T) {
	other := time.FixedZone("other", 3600)
	changes := map[string]func(s *State){
		"none":               func(*State) {},
		"generation":         func(s *State) { s.Generation++ },
		"children nil":       func(s *State) { s.Children = nil },
		"children empty":     func(s *State) { s.Children = []string{} },
		"a child renamed":    func(s *State) { s.Children = append([]string{"x"}, s.Children[1:]...) },
		"pinned empty":       func(s *State) { s.Pinned = map[string]string{} },
		"pinned nil":         func(s *State) { s.Pinned = nil },
		"a pin moved":        func(s *State) { s.Pinned["c00001"] = "r0" },
		"removing empty":     func(s *State) { s.Removing = []string{} },
		"no rollout":         func(s *State) { s.Rollout = nil },
		"rollout reason":     func(s *State) { s.Rollout.Reason = "why" },
		"history":            func(s *State) { s.Rollout.Record(time.Time{}, "x", "y") },
		"phases empty":       func(s *State) { s.Rollout.Phases = []PhaseState{} },
		"phases nil":         func(s *State) { s.Rollout.Phases = nil },
		"a second phase":     func(s *State) { s.Rollout.Phases = append(s.Rollout.Phases, PhaseState{Name: "more"}) },
		"phase status":       func(s *State) { s.Rollout.Phases[0].Status = PhaseSucceeded },
		"members empty":      func(s *State) { s.Rollout.Phases[0].Members = []string{} },
		"admitted one more":  func(s *State) { ph := &s.Rollout.Phases[0]; ph.Admitted = ph.Members[:len(ph.Admitted)+1] },
		"clusters nil":       func(s *State) { s.Rollout.Phases[0].Clusters = nil },
		"clusters empty":     func(s *State) { s.Rollout.Phases[0].Clusters = map[string]ClusterState{} },
		"a cluster's reason": func(s *State) { setCluster(s, "c00003", func(c *ClusterState) { c.Reason = "OutOfSync" }) },
		"a cluster's status": func(s *State) { setCluster(s, "c00003", func(c *ClusterState) { c.Status = ClusterWaiting }) },
		"a cluster's time":   func(s *State) { setCluster(s, "c00003", func(c *ClusterState) { c.SettledAt = c.SettledAt.Add(1) }) },
		"a cluster's time in a zone": func(s *State) {
			setCluster(s, "c00003", func(c *ClusterState) { c.AdmittedAt = c.AdmittedAt.In(other) })
		},
		"a cluster swapped": func(s *State) {
			ph := s.Rollout.Phases[0]
			delete(ph.Clusters, "c00003")
			ph.Clusters["c00009"] = ClusterState{}
		},
		"soak set":   func(s *State) { at := time.Unix(1, 0); s.Rollout.Phases[0].SoakUntil = &at },
		"a hook run": func(s *State) { s.Rollout.Phases[0].Hooks = map[string]HookRun{"pre/x": {}} },
		"paused":     func(s *State) { s.Paused = &Pause{Reason: "x"} },
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			a := equalFixture(8)
			b := a.Clone()
			change(b)
			want := reflect.DeepEqual(a, b)
			if got := Equal(a, b); got != want {
				t.Fatalf("Equal = %v, reflect.DeepEqual = %v", got, want)
			}
			if got := Equal(b, a); got != want {
				t.Fatalf("Equal reversed = %v, reflect.DeepEqual = %v", got, want)
			}
		})
	}
	if !Equal(nil, nil) || Equal(nil, equalFixture(1)) || Equal(equalFixture(1), nil) {
		t.Fatal("Equal of nil states is wrong")
	}
}

func setCluster(s *State, name string, f func(*ClusterState)) {
	c := s.Rollout.Phases[0].Clusters[name]
	f(&c)
	s.Rollout.Phases[0].Clusters[name] = c
}

// BenchmarkEqual compares a 10,000-child state with its clone, as the engine does on a
// pass that changes nothing: Equal against reflect.DeepEqual, in the same run.
func BenchmarkEqual(b *testing.B) {
	a := equalFixture(10000)
	c := a.Clone()
	b.Run("Equal", func(b *testing.B) {
		for b.Loop() {
			if !Equal(a, c) {
				b.Fatal("not equal")
			}
		}
	})
	b.Run("reflect.DeepEqual", func(b *testing.B) {
		for b.Loop() {
			if !reflect.DeepEqual(a, c) {
				b.Fatal("not equal")
			}
		}
	})
}
