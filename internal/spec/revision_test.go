package spec

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestContentIsPartOfTheIDButTheCommitIsNot: the id of a revision with content covers the
// spec and the digest; the commit rides along, and the spec-only body splits back out.
func TestContentIsPartOfTheIDButTheCommitIsNot(t *testing.T) {
	specBody := []byte(`{"generators":[],"template":{"a":{"content":{"x":1}}}}`)
	c := Content{Digest: "d1", Commit: strings.Repeat("a", 40), RepoURL: "https://git/x", Refs: []string{"", "HEAD"}}
	b1, id1, err := WithContent(specBody, c)
	if err != nil {
		t.Fatal(err)
	}
	c.Commit = strings.Repeat("b", 40)
	b2, id2, _ := WithContent(specBody, c)
	c.Digest = "d2"
	_, id3, _ := WithContent(specBody, c)
	if id1 != id2 || id1 == id3 || id1 == RevisionID(specBody) {
		t.Fatalf("ids: %s %s %s", id1, id2, id3)
	}
	for _, b := range [][]byte{b1, b2} {
		if got, err := IDOf(b); err != nil || got != id1 {
			t.Fatalf("IDOf %s: %s %v", b, got, err)
		}
		back, bc, err := SplitContent(b)
		if err != nil || string(back) != string(specBody) || bc == nil || bc.Digest != "d1" {
			t.Fatalf("split %s: %s %+v %v", b, back, bc, err)
		}
	}
	if CommitOf(b2) != strings.Repeat("b", 40) || CommitOf(specBody) != "" {
		t.Fatal("CommitOf reads the pinned commit")
	}
	if id, err := IDOf(specBody); err != nil || id != RevisionID(specBody) {
		t.Fatalf("a spec-only body keeps its id: %s %v", id, err)
	}
	forged := append(b1[:len(b1)-1:len(b1)-1], []byte(`,"x":1}`)...)
	if _, err := IDOf(forged); err == nil {
		t.Fatal("content that is not the last field is refused")
	}
}

func TestPinCommitsDefaultsOnAndCanBeTurnedOff(t *testing.T) {
	base := "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: x}\nspec:\n  generators: [{list: {elements: [{name: a}]}}]\n  template: {metadata: {name: '{{name}}'}, spec: {project: default, destination: {server: https://kubernetes.default.svc}}}\n"
	for strategy, want := range map[string]bool{
		"": true,
		"  strategy: {type: RollingSync, rollingSync: {steps: [{}]}}\n":                    true,
		"  strategy: {type: RollingSync, pinCommits: false, rollingSync: {steps: [{}]}}\n": false,
		"  strategy: {type: AllAtOnce, pinCommits: true}\n":                                true,
	} {
		s, err := Parse("x.yaml", []byte(base+strategy), targets.NewCache(1))
		if err != nil {
			t.Fatalf("%q: %v", strategy, err)
		}
		if s.PinCommits != want {
			t.Fatalf("%q: pinCommits %v", strategy, s.PinCommits)
		}
	}
	_, err := Parse("x.yaml", []byte(base+"  strategy: {type: AllAtOnce, pinCommits: maybe}\n"), targets.NewCache(1))
	if err == nil || !strings.Contains(err.Error(), "spec.strategy.pinCommits") {
		t.Fatalf("a bad value names the field: %v", err)
	}
}
