//go:build e2e

package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cmp-phase/cmp-phase/test/framework"
)

// event is one timestamped line of the hop timeline.
type event struct {
	at   time.Time
	who  string
	what string
}

// timelines prints two chains of a run, from the watch and the logs of the agent, the
// sidecar, the repo-server and the application controller: the announcement of the commit
// → the first member syncing, and one hop — the last dev member done → the first staging
// member syncing — as offsets from their start.
func timelines(w io.Writer, env *framework.Env, r *record, agentLog string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	var dev, staging []string
	for child, c := range r.children {
		switch stepOf(c) {
		case 0:
			dev = append(dev, child)
		case 1:
			staging = append(staging, child)
		}
	}
	slices.SortFunc(dev, func(a, b string) int { return r.syncStart[a].Compare(r.syncStart[b]) })
	first, announced := dev[0], later(r.commitAt, r.refresh)
	firstAt := r.syncStart[first]
	slices.SortFunc(dev, func(a, b string) int { return r.done[a].Compare(r.done[b]) })
	slices.SortFunc(staging, func(a, b string) int { return r.syncStart[a].Compare(r.syncStart[b]) })
	last, next := dev[len(dev)-1], staging[0]
	from, to := r.done[last], r.syncStart[next]
	notes := slices.Clone(r.notes)
	r.mu.Unlock()

	fmt.Fprintf(w, "\nfirst sync, %s (%s): announced → %s syncing took %s\n", label(r.s), r.version, first, secs(firstAt.Sub(announced)))
	chain(w, env, agentLog, announced, firstAt, append([]event{{announced, "bench", "commit announced"}, {firstAt, "watch", first + " seen syncing"}}, within(notes, announced, firstAt)...), r.s.name, first)
	fmt.Fprintf(w, "\nhop, %s (%s): %s done → %s syncing took %s\n", label(r.s), r.version, last, next, secs(to.Sub(from)))
	chain(w, env, agentLog, from, to, append([]event{{from, "watch", last + " seen Synced and Healthy on the commit"}, {to, "watch", next + " seen syncing"}}, within(notes, from, to)...), r.s.name, last, next)
}

// within are the events of evs from 300 ms before from to a second after to, as chain's log lines.
func within(evs []event, from, to time.Time) []event {
	var out []event
	for _, e := range evs {
		if !e.at.Before(from.Add(-300*time.Millisecond)) && !e.at.After(to.Add(time.Second)) {
			out = append(out, e)
		}
	}
	return out
}

// chain prints the log lines between from and to (and a second after) naming one of
// names, with marks, as offsets from from.
func chain(w io.Writer, env *framework.Env, agentLog string, from, to time.Time, marks []event, names ...string) {
	logs := map[string]string{"agent": agentLog}
	for _, c := range []string{"argocd-application-controller", "argocd-repo-server", "cmp-phase-serve", "argocd-server"} {
		logs[c] = filepath.Join(env.Dir, "logs", c+".log")
	}
	evs := marks
	for who, path := range logs {
		evs = append(evs, logEvents(path, who, from.Add(-300*time.Millisecond), to.Add(time.Second), names)...)
	}
	slices.SortStableFunc(evs, func(a, b event) int { return a.at.Compare(b.at) })
	for _, e := range evs {
		fmt.Fprintf(w, "%+8.3fs  %-30s %s\n", e.at.Sub(from).Seconds(), e.who, e.what)
	}
}

// logEvents reads the JSON log lines of path between from and to that name one of names
// (the agent's lines all count).
func logEvents(path, who string, from, to time.Time, names []string) []event {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var m map[string]any
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		ts, _ := m["time"].(string)
		at, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil || at.Before(from) || at.After(to) {
			continue
		}
		if who != "agent" && !mentions(string(line), names) || noise(string(line)) {
			continue
		}
		out = append(out, event{at, who, describe(m)})
	}
	return out
}

func mentions(line string, names []string) bool {
	for _, n := range names {
		if strings.Contains(line, `"`+n+`"`) || strings.Contains(line, "/"+n+`"`) || strings.Contains(line, n+" ") {
			return true
		}
	}
	return false
}

// describe is a log line's message with the fields that say what it is about.
func describe(m map[string]any) string {
	msg, _ := m["msg"].(string)
	var kv []string
	for _, k := range []string{"application", "app", "rollout", "event", "child", "parent", "generation", "phase", "revision", "newest", "lag"} {
		if v, ok := m[k]; ok {
			kv = append(kv, fmt.Sprintf("%s=%v", k, v))
		}
	}
	if len(msg) > 110 {
		msg = msg[:110] + "…"
	}
	return strings.TrimSpace(msg + " " + strings.Join(kv, " "))
}

// noise are controller lines that repeat on every refresh and say nothing about the chain.
func noise(line string) bool {
	for _, n := range []string{"Requesting app refresh caused by object update", "GetRepoObjs stats", "No status changes", "Reconciliation completed", "Update successful"} {
		if strings.Contains(line, n) {
			return true
		}
	}
	return false
}
