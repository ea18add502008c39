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

// timeline prints the chain of one hop — the last dev member done → the first staging
// member syncing — from the watch and the logs of the agent, the sidecar, the repo-server and
// the application controller, as offsets from the moment the dev member was seen done.
func timeline(w io.Writer, env *framework.Env, r *record, agentLog string) {
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
	slices.SortFunc(dev, func(a, b string) int { return r.done[a].Compare(r.done[b]) })
	slices.SortFunc(staging, func(a, b string) int { return r.syncStart[a].Compare(r.syncStart[b]) })
	last, next := dev[len(dev)-1], staging[0]
	from, to := r.done[last], r.syncStart[next]
	evs := []event{{from, "watch", last + " seen Synced and Healthy on the commit"}, {to, "watch", next + " seen syncing"}}
	if d := r.done[next]; !d.IsZero() {
		evs = append(evs, event{d, "watch", next + " seen Synced and Healthy on the commit"})
	}
	r.mu.Unlock()
	names := []string{r.s.name, last, next}
	logs := map[string]string{"agent": agentLog}
	for _, c := range []string{"argocd-application-controller", "argocd-repo-server", "cmp-phase-serve"} {
		logs[c] = filepath.Join(env.Dir, "logs", c+".log")
	}
	end := to.Add(3 * time.Second)
	for who, path := range logs {
		evs = append(evs, logEvents(path, who, from.Add(-300*time.Millisecond), end, names)...)
	}
	slices.SortStableFunc(evs, func(a, b event) int { return a.at.Compare(b.at) })
	fmt.Fprintf(w, "\nhop timeline, %s (%s): %s done → %s syncing took %s\n", label(r.s), r.version, last, next, secs(to.Sub(from)))
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
		if who != "agent" && !mentions(string(line), names) {
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
	for _, k := range []string{"application", "app", "rollout", "child", "parent", "generation", "phase", "dest-namespace", "revision"} {
		if v, ok := m[k]; ok {
			kv = append(kv, fmt.Sprintf("%s=%v", k, v))
		}
	}
	if len(msg) > 110 {
		msg = msg[:110] + "…"
	}
	return strings.TrimSpace(msg + " " + strings.Join(kv, " "))
}
