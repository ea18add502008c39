package jsoncost

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCostCounts: each item is counted once, whatever its spelling; strings (escapes
// included) are opaque.
func TestCostCounts(t *testing.T) {
	for _, c := range []struct {
		doc  string
		want counts
	}{
		{`{}`, counts{objects: 1}},
		{`[{},{}]`, counts{arrays: 1, objectsInArrays: 2}},
		{`{"a":{"b":[{}]}}`, counts{objects: 2, arrays: 1, objectsInArrays: 1, scalars: 2}},
		{`[1,-2.5e10,true,false,null]`, counts{arrays: 1, scalars: 5}},
		{`["{[\"]}", "\\", "x"]`, counts{arrays: 1, scalars: 3}},
		{`[12345678901234567890]`, counts{arrays: 1, scalars: 1}},
		{`]]]}}}`, counts{}},
		{strings.Repeat("[", 20000) + "{}" + strings.Repeat("]", 20000), counts{arrays: 20000, objectsInArrays: 1}},
		{strings.Repeat(`{"a":`, 20000) + "{}" + strings.Repeat("}", 20000), counts{objects: 10001, objectsInArrays: 10000, scalars: 20000}}, // past maxDepth: weighed as in an array
	} {
		if ub, cost := upperBound([]byte(c.doc)), Cost([]byte(c.doc)); ub < cost && json.Valid([]byte(c.doc)) {
			t.Errorf("%.40s: the fast bound %d is under the cost %d", c.doc, ub, cost)
		}
		if got := countOf(c.doc, "", false); got != c.want {
			t.Errorf("%.40s: %+v, want %+v", c.doc, got, c.want)
		}
	}
}

// countOf counts doc's items as CostRaw(doc, under, raw) weighs them.
func countOf(doc, under string, raw bool) counts {
	sc := scan{under: under, rawAt: -1, skipUntil: -1}
	if raw && under == "" {
		sc.rawAt = 1
	}
	return sc.count([]byte(doc))
}

// TestRawValuesWeighTheirBytes: a value the decoder keeps as json.RawMessage is copied, not
// parsed: it weighs one scalar (and its bytes), whatever it holds; the rest as Cost does.
func TestRawValuesWeighTheirBytes(t *testing.T) {
	for _, c := range []struct {
		doc, under string
		want       counts
	}{
		{`{"revisions":{"a":{"x":[{},{}]},"b":"s"},"rollout":{"phases":[{}]}}`, "revisions",
			counts{objects: 3, scalars: 7, arrays: 1, objectsInArrays: 1}}, // a's value is one scalar
		{`{"a":{"x":[{},{}]},"b":[1,2]}`, "", counts{objects: 1, scalars: 4}},
		{`{"other":{"a":{"x":{}}},"revisions":"s"}`, "revisions", counts{objects: 4, scalars: 5}}, // nothing raw
	} {
		if got := countOf(c.doc, c.under, true); got != c.want {
			t.Errorf("%s under %q: %+v, want %+v", c.doc, c.under, got, c.want)
		}
		if CostRaw([]byte(c.doc), c.under, true) > Cost([]byte(c.doc)) {
			t.Errorf("%s: raw weighs more than parsed", c.doc)
		}
	}
}

// TestCheckRefusesOverTheLimitNamingIt: the error says the size, the cost and the limit.
func TestCheckRefusesOverTheLimitNamingIt(t *testing.T) {
	doc := []byte("[" + strings.Repeat("{},", 1000) + "{}]")
	if err := Check(doc, Cost(doc)); err != nil {
		t.Fatalf("at its cost: %v", err)
	}
	err := Check(doc, 1<<20)
	if err == nil || !strings.Contains(err.Error(), "over the limit of 1 MiB") {
		t.Fatalf("want a refusal naming the limit, got %v", err)
	}
}

// FuzzUpperBound: the fast bound is never under the cost of a valid document (an invalid
// one fails the decoder's syntax scan before it allocates a value).
func FuzzUpperBound(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"c,:{["}],"d":null}`))
	f.Add([]byte(`[[[{}]]]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		if ub, cost := upperBound(b), Cost(b); ub < cost {
			t.Fatalf("%q: the fast bound %d is under the cost %d", b, ub, cost)
		}
	})
}

func BenchmarkCost(b *testing.B) {
	doc := []byte(strings.Repeat(`{"name":"payments-api-prod-eu-west-1-00001","status":"Done","at":"2026-11-22T10:00:00Z","n":[1,2,3]},`, 50000))
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		Cost(doc)
	}
}
