package spec

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

const anchorSpec = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: anchors
spec:
  generators:
  - list:
      elements:
      - &base {name: dev-1, env: dev, region: eu}
      - <<: *base
        name: dev-2
      - <<: [*base]
        name: dev-3
        region: us
  template:
    metadata: {name: '{{name}}'}
    spec: &spec
      project: default
      source: {repoURL: https://git.example.com/x.git, path: apps, targetRevision: v1.0.0}
      destination: {server: https://kubernetes.default.svc, namespace: '{{env}}'}
`

// TestAnchorsAliasesAndMergeKeys: a list element may merge an anchor defined in another
// element, as kubectl and Argo CD read it.
func TestAnchorsAliasesAndMergeKeys(t *testing.T) {
	s, err := Parse("a.yaml", []byte(anchorSpec), targets.NewCache(1))
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(s.Generators[0].List.Elements)
	want := "[map[env:dev name:dev-1 region:eu] map[env:dev name:dev-2 region:eu] map[env:dev name:dev-3 region:us]]"
	if got != want {
		t.Fatalf("elements %s, want %s", got, want)
	}
}

// TestBillionLaughsIsRefusedQuickly: an alias bomb is refused, not expanded.
func TestBillionLaughsIsRefusedQuickly(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: lol}\nspec:\n  x0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "  x%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	start := time.Now()
	_, err := Parse("lol.yaml", []byte(b.String()), targets.NewCache(1))
	if err == nil || !strings.Contains(err.Error(), "aliases") {
		t.Fatalf("refused with a clear error: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %s", d) // a liveness bound, not a performance target
	}
}

// TestProblemsAreCappedAndReadable: each problem once, at most 20, then how many more, in
// at most 2 KB.
func TestProblemsAreCappedAndReadable(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: many}\nspec:\n  generators:\n  - list:\n      elements:\n")
	for i := range 300 {
		fmt.Fprintf(&b, "      - not-a-mapping-%d\n", i)
	}
	b.WriteString("  template: {metadata: {name: '{{name}}'}, spec: {project: default, destination: {server: https://kubernetes.default.svc}}}\n")
	_, err := Parse("many.yaml", []byte(b.String()), targets.NewCache(1))
	es, ok := err.(Errors)
	if !ok {
		t.Fatalf("want located errors, got %v", err)
	}
	lines := es.Lines()
	if len(lines) != 21 || !strings.HasPrefix(lines[20], "and ") || len(err.Error()) > 2048 {
		t.Fatalf("%d lines, %d bytes: %q", len(lines), len(err.Error()), lines[len(lines)-1])
	}
}

// TestALargeSpecWithoutAliasesIsRefusedAsLarge: a spec over the node limit as written is
// refused for its size, with the count, the limit and the fix; an alias bomb still for its
// aliases. Each message has one fix.
func TestALargeSpecWithoutAliasesIsRefusedAsLarge(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: big}\nspec:\n  generators:\n  - list:\n      elements:\n")
	for range 70_000 {
		b.WriteString("      - {n: x}\n")
	}
	_, err := Parse("big.yaml", []byte(b.String()), targets.NewCache(1))
	if err == nil {
		t.Fatal("a spec of 210,000 nodes was accepted")
	}
	msg := err.Error()
	if !regexp.MustCompile(`big\.yaml:1: \(file\): has 2\d{5} YAML nodes, over the limit of 200000 \(fix: split the rollout`).MatchString(msg) ||
		strings.Contains(msg, "alias") || strings.Count(msg, "(fix: ") != 1 {
		t.Fatalf("want the node count, the limit and one fix, no aliases: %s", msg)
	}

	var lol strings.Builder
	lol.WriteString("apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: lol}\nspec:\n  x0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&lol, "  x%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	_, err = Parse("lol.yaml", []byte(lol.String()), targets.NewCache(1))
	if err == nil || !strings.Contains(err.Error(), "lol.yaml:1: (file): expanding its aliases makes over 200000 YAML nodes (fix: use fewer, smaller aliases)") || strings.Count(err.Error(), "(fix: ") != 1 {
		t.Fatalf("want the alias message with one fix: %v", err)
	}
}
