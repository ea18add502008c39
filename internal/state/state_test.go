package state

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// bigState is a worst case for size: 10,000 deployed children with realistic names, two
// stored revisions, 500 pinned children and a rollout whose phases snapshot every child and
// have admitted half.
func bigState(n int) *State {
	children := make([]string, n)
	for i := range children {
		children[i] = fmt.Sprintf("payments-api-prod-%s-%05d", []string{"eu-west-1", "us-east-1", "ap-south-1"}[i%3], i)
	}
	slices.Sort(children)
	rev := json.RawMessage(`{"generators":[{"clusters":{"selector":{"matchLabels":{"env":"prod"}}}}],"template":{"metadata":{"name":"payments-api-{{name}}"},"spec":{"project":"default","source":{"repoURL":"https://git.example.com/payments.git","targetRevision":"v2.3.4","path":"deploy"},"destination":{"server":"{{server}}","namespace":"payments"}}}}`)
	pinned := map[string]string{}
	for i := 0; i < 500 && i*7 < n; i++ {
		pinned[children[i*7]] = "bbbbbbbbbbbbbbbb"
	}
	phases := []PhaseState{}
	for p := 0; p < 4; p++ {
		members := children[p*n/4 : (p+1)*n/4]
		phases = append(phases, PhaseState{Name: fmt.Sprintf("phase-%d", p), Members: members, Admitted: members[:len(members)/2]})
	}
	return &State{
		Schema: Schema, Generation: 123456, Deployed: "aaaaaaaaaaaaaaaa", Children: children, Pinned: pinned,
		Revisions: map[string]json.RawMessage{"aaaaaaaaaaaaaaaa": rev, "bbbbbbbbbbbbbbbb": rev, "cccccccccccccccc": rev},
		Rollout:   &Rollout{Revision: "cccccccccccccccc", Status: "Progressing", Phase: 3, Phases: phases, StartedAt: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)},
	}
}

func TestTenThousandClustersFitWithHeadroom(t *testing.T) {
	s := bigState(10000)
	b, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	headroom := 1 - float64(len(b))/MaxConfigMapBytes
	t.Logf("10,000 clusters: %d bytes compressed, %.1f%% of a ConfigMap free", len(b), headroom*100)
	if headroom < 0.30 {
		t.Fatalf("only %.1f%% headroom", headroom*100)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Fatal("decode(encode(s)) != s")
	}
}

func gz(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write([]byte(s))
	_ = w.Close()
	return b.Bytes()
}

func TestDecodeRefusesWhatItCannotTrust(t *testing.T) {
	cases := map[string]struct {
		in   []byte
		want string
	}{
		"an empty document":       {nil, "no state document"},
		"data that is not gzip":   {[]byte("plain text"), "not gzip"},
		"corrupt json":            {gz(`{"schema":1,`), "corrupt json"},
		"a future schema":         {gz(`{"schema":2,"generation":1}`), "schema 2, this cmp-phase reads 1 (fix: upgrade cmp-phase)"},
		"an unknown field":        {gz(`{"schema":1,"generation":1,"shards":[]}`), `unknown field "shards"`},
		"a zero generation":       {gz(`{"schema":1,"generation":0}`), "generation 0 must be positive"},
		"a generation that wraps": {gz(`{"schema":1,"generation":9223372036854775807}`), "over the limit of 4611686018427387904, past which the next write would wrap (fix: "},
		"unsorted children":       {gz(`{"schema":1,"generation":1,"children":["b","a"]}`), "sorted and unique"},
		"a pin to nothing":        {gz(`{"schema":1,"generation":1,"revisions":{"r":{}},"deployed":"r","children":["a"],"pinned":{"a":"x"}}`), `revision "x"`},
		"deployed without specs":  {gz(`{"schema":1,"generation":1,"deployed":"r","children":["a"]}`), `deployed revision "r" has no stored spec`},
		"over-size input":         {bytes.Repeat([]byte{0}, MaxConfigMapBytes+1), "over the ConfigMap limit"},
		"a gzip bomb":             {gz(strings.Repeat(" ", MaxInflated+10)), "inflate past"},
		// issue 47: 58 KB gzip'd inflated to 57 MB and took 1.17 GB to decode.
		"a bomb of empty phases":  {gz(hostile("rollout-phases", 6<<20)), "to decode, over the limit of 128 MiB"},
		"a bomb of history":       {gz(hostile("history", 6<<20)), "to decode, over the limit of 128 MiB"},
		"a bomb of values":        {gz(hostile("values", 6<<20)), "to decode, over the limit of 128 MiB"},
		"a bomb of map entries":   {gz(hostile("clusters", 3<<20)), "to decode, over the limit of 128 MiB"},
		"a bomb's fix":            {gz(hostile("rollout-phases", 6<<20)), "fix: delete the state ConfigMap"},
		"a bomb past the inflate": {gz(hostile("rollout-phases", 9<<20)), "8× the ConfigMap's limit"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Decode(c.in)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want error containing %q, got %v", c.want, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
		})
	}
}

func TestEncodeRefusesOverBudget(t *testing.T) {
	s := bigState(10)
	random := make([]byte, Budget*2)
	_, _ = rand.Read(random)
	s.Revisions["dddddddddddddddd"] = json.RawMessage(`"` + hex.EncodeToString(random) + `"`)
	if _, err := Encode(s); err == nil || !strings.Contains(err.Error(), "over the budget") {
		t.Fatalf("want a budget error, got %v", err)
	}
}

func TestRevisionOf(t *testing.T) {
	s := bigState(8)
	s.Rollout.Phases = []PhaseState{{Name: "canary", Admitted: []string{s.Children[1]}}}
	cases := []struct {
		child, rev, phase string
		ok                bool
	}{
		{s.Children[1], "cccccccccccccccc", "canary", true},
		{s.Children[0], "bbbbbbbbbbbbbbbb", "", true}, // pinned
		{s.Children[2], "aaaaaaaaaaaaaaaa", "", true}, // default
		{"never-deployed", "", "", false},
	}
	for _, c := range cases {
		rev, phase, ok := s.RevisionOf(c.child)
		if rev != c.rev || phase != c.phase || ok != c.ok {
			t.Errorf("%s: got %s %s %v", c.child, rev, phase, ok)
		}
	}
	s.Rollout.Status = "Completed"
	if rev, _, _ := s.RevisionOf(s.Children[1]); rev != "aaaaaaaaaaaaaaaa" {
		t.Errorf("a completed rollout must not decide revisions, got %s", rev)
	}
}

// FuzzDecode: no input panics, and whatever decodes re-encodes to an equal state.
func FuzzDecode(f *testing.F) {
	good, _ := Encode(bigState(20))
	f.Add(good)
	f.Add(gz(`{"schema":1,"generation":3}`))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode(b)
		if err != nil {
			return
		}
		again, err := Encode(s)
		if err != nil {
			return // may exceed the budget
		}
		s2, err := Decode(again)
		if err != nil || !reflect.DeepEqual(s, s2) {
			t.Fatalf("round trip failed: %v", err)
		}
	})
}

func TestCloneIsDeep(t *testing.T) {
	s := bigState(50)
	now := time.Now()
	s.Rollout.Phases[0].SoakUntil = &now
	s.Rollout.Phases[0].Clusters = map[string]ClusterState{"a": {Status: "Waiting"}}
	c := s.Clone()
	if !reflect.DeepEqual(s, c) {
		t.Fatal("a clone equals its original")
	}
	c.Children[0] = "changed"
	c.Pinned["x"] = "y"
	c.Rollout.Phases[0].Admitted[0] = "changed"
	c.Rollout.Phases[0].Clusters["a"] = ClusterState{Status: "Done"}
	*c.Rollout.Phases[0].SoakUntil = now.Add(time.Hour)
	c.Rollout.Status = "Completed"
	if s.Children[0] == "changed" || s.Pinned["x"] == "y" || s.Rollout.Phases[0].Admitted[0] == "changed" ||
		s.Rollout.Phases[0].Clusters["a"].Status == "Done" || !s.Rollout.Phases[0].SoakUntil.Equal(now) || s.Rollout.Status == "Completed" {
		t.Fatal("mutating the clone changed the original")
	}
}

// BenchmarkAdmittedPhases: every render of a state and every pass of the agent index the
// admitted children (Assignments).
func BenchmarkAdmittedPhases(b *testing.B) {
	r := bigState(10000).Rollout
	b.ReportAllocs()
	for b.Loop() {
		_ = r.AdmittedPhases()
	}
}

// TestTheHistoryKeepsItsLatestEntriesOnly: a rollout that records more than MaxHistory
// events keeps the latest MaxHistory, oldest first, so the state stays within its budget.
func TestTheHistoryKeepsItsLatestEntriesOnly(t *testing.T) {
	r := &Rollout{}
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for i := range MaxHistory + 25 {
		r.Record(t0.Add(time.Duration(i)*time.Second), "Event", fmt.Sprintf("entry %d", i))
	}
	if len(r.History) != MaxHistory {
		t.Fatalf("%d entries kept, want %d", len(r.History), MaxHistory)
	}
	if r.History[0].Message != "entry 25" || r.History[MaxHistory-1].Message != fmt.Sprintf("entry %d", MaxHistory+24) {
		t.Fatalf("the oldest entries go first: %q … %q", r.History[0].Message, r.History[MaxHistory-1].Message)
	}
}
