// Package sizes holds the test of the size rules the product code keeps (issue 30): no
// function over maxLines lines, none with a cyclomatic complexity over maxCyclomatic, and
// internal/agent within agentLinesCap lines. Product code is every .go file of the
// repository but tests (_test.go), test/, hack/, ui/ and dot-folders. It has no code besides
// the test, and no build tags: go test ./... runs it.
package sizes

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	// maxLines is the most lines a product function may span, from its func keyword to its
	// closing brace, both included (80 until issue 48 split the last longer ones).
	maxLines = 60
	// maxCyclomatic is the highest cyclomatic complexity a product function may have (20
	// until issue 48 split the last more complex ones).
	maxCyclomatic = 15
	// warnCyclomatic is the figure above which the summary counts a function as complex,
	// though allowed.
	warnCyclomatic = 15
	// agentLinesCap is the most lines internal/agent's product files may hold together: the
	// figure when this test was written (4,605: 4,569 before publish and act were split into
	// helpers to keep the rules below), then 4,306 once the engine decided removals and the
	// job kind took its cluster reach, then 2,949 once ten concepts moved to packages of
	// their own, then 2,426 once the hook-run ledger (internal/agent/hookrun), the child syncs
	// and their retries (internal/agent/childsync) and the rollouts' memory between passes
	// (internal/agent/passmemo) moved too. The cap is issue 30's target, 2,500, met: the package
	// may not grow past it. It counts the package's own files, not the packages nested under
	// it (issue 48 moved the agent's own packages there, unchanged).
	agentLinesCap = 2500
)

// exempt are functions the rules do not hold yet, as "path:name", each with the reason. An
// entry whose function is gone, or keeps the rules, fails the test: drop it then.
var exempt = map[string]string{}

// skipDirs are the top-level folders that hold no product code.
var skipDirs = []string{"test", "hack", "ui"}

// function is one product function's figures.
type function struct {
	pos        string // path:line, path relative to the repository root, slash-separated
	key        string // path:name, as exempt names it
	name       string // Name, (T).Name or (*T).Name
	lines      int
	cyclomatic int
}

func TestSizes(t *testing.T) {
	root := repoRoot(t)
	fns, agentLines := measure(t, root)
	if len(fns) == 0 {
		t.Fatal("no product function found under", root)
	}
	used := map[string]bool{}
	var checked []function
	var long, branchy []string
	for _, f := range fns {
		if _, ok := exempt[f.key]; ok {
			used[f.key] = true
			t.Logf("exempt: %s: %s: %d lines, cyclomatic %d", f.pos, f.name, f.lines, f.cyclomatic)
			if f.lines <= maxLines && f.cyclomatic <= maxCyclomatic {
				t.Errorf("exempt names %s, which keeps the rules now: drop the entry", f.key)
			}
			continue
		}
		checked = append(checked, f)
		if f.lines > maxLines {
			long = append(long, fmt.Sprintf("%s: %s: %d lines", f.pos, f.name, f.lines))
		}
		if f.cyclomatic > maxCyclomatic {
			branchy = append(branchy, fmt.Sprintf("%s: %s: cyclomatic %d", f.pos, f.name, f.cyclomatic))
		}
	}
	logSummary(t, checked, agentLines)
	if len(long) > 0 {
		t.Errorf("%d functions over %d lines (split them into named helpers):\n%s",
			len(long), maxLines, strings.Join(long, "\n"))
	}
	if len(branchy) > 0 {
		t.Errorf("%d functions over cyclomatic complexity %d (split them into named helpers):\n%s",
			len(branchy), maxCyclomatic, strings.Join(branchy, "\n"))
	}
	if agentLines > agentLinesCap {
		t.Errorf("internal/agent holds %d product lines, over the cap of %d", agentLines, agentLinesCap)
	}
	for key := range exempt {
		if !used[key] {
			t.Errorf("exempt names %s, which no longer exists: drop the entry", key)
		}
	}
}

// logSummary logs the figures the rules are about over the functions they hold, exempt ones
// left out, so they can be quoted.
func logSummary(t *testing.T, fns []function, agentLines int) {
	t.Helper()
	maxCyc, longest := fns[0], fns[0]
	over := 0
	for _, f := range fns {
		if f.cyclomatic > maxCyc.cyclomatic {
			maxCyc = f
		}
		if f.lines > longest.lines {
			longest = f
		}
		if f.cyclomatic > warnCyclomatic {
			over++
		}
	}
	t.Logf("\n%-28s %-8s %s\n%-28s %-8d %s %s\n%-28s %-8d\n%-28s %-8d %s %s\n%-28s %-8d cap %d",
		"figure", "value", "where",
		"max cyclomatic", maxCyc.cyclomatic, maxCyc.pos, maxCyc.name,
		fmt.Sprintf("functions over cyclomatic %d", warnCyclomatic), over,
		"longest function (lines)", longest.lines, longest.pos, longest.name,
		"internal/agent lines", agentLines, agentLinesCap)
}

// measure parses every product file under root and returns its functions, in file order,
// and the lines of internal/agent's product files.
func measure(t *testing.T, root string) ([]function, int) {
	t.Helper()
	var fns []function
	agentLines := 0
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || slices.Contains(skipDirs, rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if path, _ := filepath.Split(rel); path == "internal/agent/" {
			agentLines += countLines(src)
		}
		file, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		fns = append(fns, functions(fset, rel, file)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fns, agentLines
}

// countLines counts lines as wc -l does, plus a last line without its newline.
func countLines(src []byte) int {
	n := bytes.Count(src, []byte("\n"))
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}

// functions returns the figures of every function declared in file, at rel.
func functions(fset *token.FileSet, rel string, file *ast.File) []function {
	var fns []function
	for _, decl := range file.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		start, end := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
		fns = append(fns, function{
			pos:        fmt.Sprintf("%s:%d", rel, start),
			key:        rel + ":" + fd.Name.Name,
			name:       funcName(fd),
			lines:      end - start + 1,
			cyclomatic: cyclomatic(fd),
		})
	}
	return fns
}

// funcName is fd's name as gocyclo prints it: Name, (T).Name or (*T).Name.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	return "(" + recvType(fd.Recv.List[0].Type) + ")." + fd.Name.Name
}

// recvType prints a receiver's type without its type parameters.
func recvType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return "*" + recvType(e.X)
	case *ast.IndexExpr:
		return recvType(e.X)
	case *ast.IndexListExpr:
		return recvType(e.X)
	case *ast.Ident:
		return e.Name
	}
	return "?"
}

// cyclomatic is fd's cyclomatic complexity as gocyclo counts it: 1, plus one for each if,
// for, range, case clause but default, select clause but default, && and ||, function
// literals in the body included.
func cyclomatic(fd *ast.FuncDecl) int {
	c := 1
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if n.List != nil {
				c++
			}
		case *ast.CommClause:
			if n.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}

// repoRoot is the repository's root: the directory of go.mod above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = up
	}
}
