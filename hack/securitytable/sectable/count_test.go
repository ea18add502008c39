package sectable

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCasesAreTheRowsOfTheTablesATestRangesOver(t *testing.T) {
	p, err := load(".", "testdata/fixture")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		test string
		r    rule
		want int
	}{
		{"TestInline", rule{}, 2},
		{"TestBound", rule{}, 6},
		{"TestBound", rule{skip: `""`}, 5},
		{"TestCalls", rule{}, 1},
		{"TestCalls", rule{helper: "check"}, 2},
		{"TestSingle", rule{}, 1},
	} {
		if got, err := p.cases(c.test, c.r); err != nil || got != c.want {
			t.Errorf("%s %+v: %d %v, want %d", c.test, c.r, got, err, c.want)
		}
	}
	if _, err := p.cases("TestGone", rule{}); err == nil {
		t.Error("a test that does not exist is counted")
	}
}

func TestEveryAreaCountsAndEveryFaultTestInjects(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	as, err := Areas(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range as {
		if a.Total() < len(a.Tests) {
			t.Errorf("%s: %d cases in %d tests", a.Name, a.Total(), len(a.Tests))
		}
	}
	fs, err := Faults(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != len(faultTests) {
		t.Fatalf("%d fault tests, want %d", len(fs), len(faultTests))
	}
}

func TestSpliceReplacesOnlyTheBlock(t *testing.T) {
	page := "# x\n\n" + Begin + "\nold\n" + End + "\n\nafter\n"
	got, err := Splice(page, Begin+"\nnew\n"+End+"\n")
	if err != nil || got != "# x\n\n"+Begin+"\nnew\n"+End+"\n\nafter\n" {
		t.Fatalf("%q %v", got, err)
	}
	if _, err := Splice(strings.ReplaceAll(page, End, ""), "x"); err == nil {
		t.Fatal("a page without its end marker is spliced")
	}
	if _, err := os.Stat(filepath.Join("..", "..", "..", Page)); err != nil {
		t.Fatal(err)
	}
}
