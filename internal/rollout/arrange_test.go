package rollout

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// cluster is a child whose cluster has the given labels.
func cluster(key string, labels ...string) targets.Child {
	l := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		l[labels[i]] = labels[i+1]
	}
	return targets.Child{Key: key, Subject: targets.Subject{Name: key, Labels: l}}
}

func ordering(t *testing.T, order, spread string) targets.Ordering {
	t.Helper()
	o := targets.Ordering{Order: order, Spread: spread}
	if err := o.Compile(targets.NewCache(8)); err != nil {
		t.Fatal(err)
	}
	return o
}

func TestArrangeLinesMembersUpByOrderThenSpread(t *testing.T) {
	fleet := []targets.Child{
		cluster("eu-2", "region", "eu", "weight", "2"), cluster("us-1", "region", "us", "weight", "1"),
		cluster("eu-1", "region", "eu", "weight", "1"), cluster("ap-1", "region", "ap", "weight", "3"),
		cluster("us-2", "region", "us", "weight", "10"), cluster("eu-3", "region", "eu", "weight", "1"),
	}
	cases := map[string]struct {
		order, spread string
		want          string
	}{
		"neither: child-name order":              {"", "", "[ap-1 eu-1 eu-2 eu-3 us-1 us-2]"},
		"a string key, ties by name":             {"labels.region", "", "[ap-1 eu-1 eu-2 eu-3 us-1 us-2]"},
		"a number key sorts numerically":         {`int(labels.weight)`, "", "[eu-1 eu-3 us-1 eu-2 ap-1 us-2]"},
		"a string of digits sorts as a string":   {`labels.weight`, "", "[eu-1 eu-3 us-1 us-2 eu-2 ap-1]"},
		"descending with a negative number":      {`-int(labels.weight)`, "", "[us-2 ap-1 eu-2 eu-1 eu-3 us-1]"},
		"spread alone: one per region, by name":  {"", "labels.region", "[ap-1 eu-1 us-1 eu-2 us-2 eu-3]"},
		"spread over an order":                   {`int(labels.weight)`, "labels.region", "[eu-1 us-1 ap-1 eu-3 us-2 eu-2]"},
		"spread by an expression":                {"", `name startsWith "eu" ? "eu" : "other"`, "[ap-1 eu-1 us-1 eu-2 us-2 eu-3]"},
		"a label a cluster lacks reads as empty": {"labels.tier", "labels.tier", "[ap-1 eu-1 eu-2 eu-3 us-1 us-2]"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			o := ordering(t, c.order, c.spread)
			got, err := arrange(&o, fleet)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != c.want {
				t.Fatalf("got %v want %s", got, c.want)
			}
			for range 5 { // deterministic: the input's order never matters
				shuffled := slices.Clone(fleet)
				rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
				if again, _ := arrange(&o, shuffled); fmt.Sprint(again) != c.want {
					t.Fatalf("depends on input order: %v", again)
				}
			}
		})
	}
}

func TestArrangeRefusesKeysItCannotOrderBy(t *testing.T) {
	fleet := []targets.Child{cluster("a", "region", "eu", "w", "1"), cluster("b", "w", "x")}
	cases := map[string]struct {
		order, spread string
		want          []string
	}{
		"no value for one cluster":  {`labels.w == "1" ? "x" : nil`, "", []string{"child b: order:", `evaluate "labels.w == \"1\" ? \"x\" : nil" for b: no value`}},
		"no spread for one cluster": {"", `labels.w == "1" ? "x" : nil`, []string{"child b: spread:", "no value"}},
		"a conversion that fails":   {"int(labels.w)", "", []string{"child b: order:", `evaluate "int(labels.w)" for b`}},
		"both kinds of key":         {`labels.w == "1" ? 1 : "z"`, "", []string{"gives a number for a and a string for b", "fix:"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			o := ordering(t, c.order, c.spread)
			_, err := arrange(&o, fleet)
			for _, w := range c.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("got %v, want %q", err, w)
				}
			}
		})
	}
	if _, err := arrange(&targets.Ordering{Order: "name"}, fleet); err == nil || !strings.Contains(err.Error(), "not compiled") {
		t.Fatalf("an ordering not compiled never falls back to name order: %v", err)
	}
}

// TestTenPercentOfProdIsOneClusterPerRegionFirst: the case. 30 prod clusters over 3
// regions, named so that name order would take one region only; with spread labels.region
// the 10% canary (3 clusters) is one per region, and a second in any region comes only after.
func TestTenPercentOfProdIsOneClusterPerRegionFirst(t *testing.T) {
	var fleet []targets.Child
	for _, region := range []string{"ap", "eu", "us"} {
		for i := range 10 {
			fleet = append(fleet, cluster(fmt.Sprintf("prod-%s-%02d", region, i), "env", "prod", "region", region))
		}
	}
	canary, rest := envPhase("canary", "prod", pct(10), false), envPhase("rest", "prod", spec.Size{}, false)
	canary.Ordering = ordering(t, "", "labels.region")
	members, err := Snapshot([]spec.Phase{canary, rest}, fleet)
	if err != nil {
		t.Fatal(err)
	}
	first := ToAdmit(canary.Size, members[0], map[string]bool{})
	if fmt.Sprint(first) != "[prod-ap-00 prod-eu-00 prod-us-00]" {
		t.Fatalf("10%% of prod: %v", first)
	}
	if fmt.Sprint(members[1][:3]) != "[prod-ap-00 prod-ap-01 prod-ap-02]" {
		t.Fatalf("a phase without order or spread keeps name order: %v", members[1][:3])
	}
}

// TestTheOrderIsTheSnapshots: once the rollout has started, a label changing moves nobody:
// admission follows the order recorded in the state, not one taken again.
func TestTheOrderIsTheSnapshots(t *testing.T) {
	phases := threePhases()
	phases[2].Size = spec.Size{Kind: spec.SizeCount, Value: 1}
	phases[2].Ordering = ordering(t, `"rank" in labels ? labels.rank : "~"`, "")
	w := newWorld(phases...)
	for _, k := range []string{"prod-1", "prod-2"} {
		i := slices.IndexFunc(w.obs.Subjects, func(c targets.Child) bool { return c.Key == k })
		w.obs.Subjects[i].Labels = map[string]string{"env": "prod", "rank": map[string]string{"prod-1": "b", "prod-2": "a"}[k]}
	}
	w.step(t, 0)
	if got := w.st.Rollout.Phases[2].Members; fmt.Sprint(got) != "[prod-2 prod-1]" {
		t.Fatalf("the snapshot records the order: %v", got)
	}
	for i := range w.obs.Subjects { // the ranks swap mid-rollout
		if w.obs.Subjects[i].Labels["rank"] != "" {
			w.obs.Subjects[i].Labels["rank"] = map[string]string{"a": "b", "b": "a"}[w.obs.Subjects[i].Labels["rank"]]
		}
	}
	w.finish(t, 5, "r2")
	if got := w.st.Rollout.Phases[2].Admitted; fmt.Sprint(got) != "[prod-2]" {
		t.Fatalf("prod-2 ranked first when the rollout started and is admitted first: %+v", w.st.Rollout.Phases[2])
	}
}

func TestALateJoinerJoinsAnOrderedPhaseLast(t *testing.T) {
	if got := joinMembers([]string{"b", "a"}, "0", false); fmt.Sprint(got) != "[b a 0]" {
		t.Fatalf("ordered: %v", got)
	}
	if got := joinMembers([]string{"a", "c"}, "b", true); fmt.Sprint(got) != "[a b c]" {
		t.Fatalf("name order: %v", got)
	}
}
