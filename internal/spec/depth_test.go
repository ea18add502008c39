package spec

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestADeepDocumentIsRefusedAsDeep: YAML nested 5,000 deep without an alias was refused
// with a message about aliases (issue 47). Nested as written it is refused as deep, with
// one fix; nested by aliases of aliases, for its aliases.
func TestADeepDocumentIsRefusedAsDeep(t *testing.T) {
	head := "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: deep}\nspec:\n"
	for _, tc := range []struct{ name, doc, want string }{
		{"sequences", head + "  x: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n",
			"deep.yaml:1: (file): nests over 1000 levels deep (fix: write it with fewer nested levels: a spec needs a few dozen)"},
		{"mappings", head + "  x: " + strings.Repeat("{a: ", 5000) + "b" + strings.Repeat("}", 5000) + "\n",
			"deep.yaml:1: (file): nests over 1000 levels deep (fix: write it with fewer nested levels"},
		{"aliases of aliases", head + aliasChain(600), "deep.yaml:1: (file): expanding its aliases nests it over 1000 levels deep (fix: use fewer aliases of aliases)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("deep.yaml", []byte(tc.doc), targets.NewCache(1))
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Count(err.Error(), "(fix: ") != 1 {
				t.Fatalf("error %v, want %q with one fix", err, tc.want)
			}
			if tc.name != "aliases of aliases" && strings.Contains(err.Error(), "alias") {
				t.Fatalf("a document without aliases is refused for its aliases: %v", err)
			}
		})
	}
}

// aliasChain is an anchor nested n deep, and an alias of it nested n deep: under 1000
// levels as written, 2n once the alias is expanded.
func aliasChain(n int) string {
	return "  x: &a " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n" +
		"  y: " + strings.Repeat("[", n) + "*a" + strings.Repeat("]", n) + "\n"
}
