package docs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cmp-phase/cmp-phase/hack/securitytable/sectable"
)

// TestSecurityTableIsWhatTheTestsSay fails when the table in docs/security.md differs from
// the one the adversarial and fault tests give today (a test added, renamed or a table
// grown): the figures stay the tests' own.
func TestSecurityTableIsWhatTheTestsSay(t *testing.T) {
	root := repoRoot(t)
	block, err := sectable.Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, sectable.Page))
	if err != nil {
		t.Fatal(err)
	}
	want, err := sectable.Splice(string(page), block)
	if err != nil {
		t.Fatal(err)
	}
	if want != string(page) {
		t.Fatalf("%s's table differs from what the tests say (fix: go run ./hack/securitytable -w); it should read:\n%s", sectable.Page, block)
	}
}
