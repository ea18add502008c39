package status

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Shard is one parent of a sharded rollout as its plan shows it.
type Shard struct {
	Shard      string `json:"shard"` // k/N
	Parent     string `json:"parent,omitempty"`
	Children   int    `json:"children"`
	Generation int64  `json:"generation"`     // the state generation its last render saw
	Held       string `json:"held,omitempty"` // why this shard holds the rollout
}

// AddShards puts a sharded rollout's shards (from their plans) into d, one per shard of N
// in order: a shard without a plan is listed with no parent, and the reason the rollout is
// held goes on the shard it names.
func AddShards(d *Doc, found []Shard) {
	if len(found) == 0 {
		return
	}
	n := 0
	for _, s := range found {
		if _, ns, ok := strings.Cut(s.Shard, "/"); ok {
			if v, err := strconv.Atoi(ns); err == nil {
				n = max(n, v)
			}
		}
	}
	byName := map[string]Shard{}
	for _, s := range found {
		byName[s.Shard] = s
	}
	var out []Shard
	for k := range n {
		name := fmt.Sprintf("%d/%d", k, n)
		s, ok := byName[name]
		if !ok {
			s = Shard{Shard: name}
		}
		delete(byName, name)
		out = append(out, s)
	}
	for _, s := range byName { // a plan saying another N: shown, the agent holds on it
		out = append(out, s)
	}
	slices.SortStableFunc(out[n:], func(a, b Shard) int { return cmp.Compare(a.Shard, b.Shard) })
	for i := range out {
		if why, ok := strings.CutPrefix(d.Reason, "held: shard "+out[i].Shard+": "); ok {
			out[i].Held = why
		}
	}
	d.Shards = out
}

// shardLines are the table's lines of a sharded rollout: one per shard.
func shardLines(line func(string, ...any), d Doc, o TableOptions) {
	if len(d.Shards) == 0 {
		return
	}
	var rows []row
	if !o.NoHeaders {
		rows = append(rows, row{cells: []string{"SHARD", "PARENT", "CHILDREN", "GENERATION", "HELD"}, head: true})
	}
	for _, s := range d.Shards {
		parent := s.Parent
		if parent == "" {
			parent = "(no plan)"
		}
		rows = append(rows, row{cells: []string{s.Shard, parent, fmt.Sprint(s.Children), fmt.Sprint(s.Generation), s.Held}})
	}
	tabulate(line, false, rows)
}
