package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/hooks/commandhook"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// listed is the code-quoted names a page holds between its `<!-- name:begin -->` and
// `<!-- name:end -->` markers, as one comma-separated list.
func listed(t *testing.T, rel, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	begin, end := "<!-- "+name+":begin -->", "<!-- "+name+":end -->"
	s := string(b)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %s … %s block", rel, begin, end)
	}
	return strings.TrimSpace(s[i+len(begin) : j])
}

// quoted is names as the docs list them: `a`, `b`.
func quoted(names []string) string {
	return "`" + strings.Join(names, "`, `") + "`"
}

// TestTheExpressionBuiltinsAreTheAllowList: docs/spec.md lists exactly the builtins an
// expression may call.
func TestTheExpressionBuiltinsAreTheAllowList(t *testing.T) {
	if got, want := listed(t, "docs/spec.md", "expr-builtins"), quoted(targets.AllowedBuiltins()); got != want {
		t.Fatalf("docs/spec.md's expression builtins differ from targets.AllowedBuiltins (fix: write them as)\n%s", want)
	}
}

// TestTheCommandEnvWordsAreTheAllowList: docs/hooks/command.md lists exactly the first
// words a command hook's variables may have.
func TestTheCommandEnvWordsAreTheAllowList(t *testing.T) {
	if got, want := listed(t, "docs/hooks/command.md", "command-env-words"), quoted(commandhook.EnvWords); got != want {
		t.Fatalf("docs/hooks/command.md's words differ from commandhook.EnvWords (fix: write them as)\n%s", want)
	}
}
