package docs

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// schemaFile is the spec's JSON Schema, for editors (docs/spec.md shows the line).
const schemaFile = "schema/spec.schema.json"

// specSchema compiles schema/spec.schema.json, and returns its decoded JSON too.
func specSchema(t *testing.T, root string) (*jsonschema.Schema, any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, schemaFile))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaFile, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(schemaFile)
	if err != nil {
		t.Fatalf("%s does not compile: %v", schemaFile, err)
	}
	return s, doc
}

// TestTheSchemaAcceptsEverySpecExample: every spec the parser accepts among the examples
// (examples/, manifests/example), the seeds' examples and composed examples
// (internal/spec/testdata) and the docs' yaml blocks with kind: ApplicationSet (but those
// marked <!-- invalid -->) validates against the schema: an editor never flags a spec
// cmp-phase takes.
func TestTheSchemaAcceptsEverySpecExample(t *testing.T) {
	root := repoRoot(t)
	s, _ := specSchema(t, root)
	docs := map[string][]byte{} // where → one YAML document
	for _, dir := range []string{"examples", "manifests/example", "internal/spec/testdata/seeds", "internal/spec/testdata/compose"} {
		n := 0
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			for i, doc := range bytes.Split(b, []byte("\n---\n")) {
				if specKind.Match(doc) {
					docs[rel+"#"+strconv.Itoa(i)], n = doc, n+1
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 && dir != "manifests/example" {
			t.Fatalf("no spec found under %s", dir)
		}
	}
	ps := pages(t, root)
	for _, name := range slices.Sorted(maps.Keys(ps)) {
		for _, b := range ps[name].blocks {
			if (b.lang == "yaml" || b.lang == "yml") && !b.invalid && specKind.MatchString(b.text) {
				docs[name+":"+strconv.Itoa(b.line)] = []byte(b.text)
			}
		}
	}
	checked := 0
	for _, where := range slices.Sorted(maps.Keys(docs)) {
		if _, err := spec.Parse(where, docs[where], targets.NewCache(64)); err != nil {
			t.Logf("refused %s: %.200v", where, err)
			continue // a spec the parser refuses (a test's invalid example) may be refused by the schema too
		}
		j, err := sigsyaml.YAMLToJSON(docs[where])
		if err != nil {
			t.Errorf("%s: %v", where, err)
			continue
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(v); err != nil {
			t.Errorf("%s: cmp-phase accepts this spec, %s does not:\n%v", where, schemaFile, err)
		}
		checked++
	}
	if checked < 15 {
		t.Fatalf("only %d specs checked against the schema", checked)
	}
}

// TestTheSchemaKnowsEveryFieldTheParserAccepts: every list of field names the parser
// accepts at one place (a `fields(node, path, "a", "b", …)` call in internal/spec, and a
// hook kind's `r.Fields(…)` in internal/hooks) is found whole among the properties of one
// object of the schema, so a field added to the parser fails here until the schema has it.
func TestTheSchemaKnowsEveryFieldTheParserAccepts(t *testing.T) {
	root := repoRoot(t)
	_, doc := specSchema(t, root)
	var objects [][]string // the property names of every object the schema describes
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if p, ok := v["properties"].(map[string]any); ok {
				objects = append(objects, slices.Collect(maps.Keys(p)))
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(doc)
	var kinds []string
	for _, k := range spec.HookKinds() {
		kinds = append(kinds, k.Name())
	}
	lists := parserFieldLists(t, root, kinds)
	if len(lists) < 20 {
		t.Fatalf("found %d field lists in the parser: is the search still right?", len(lists))
	}
	for where, fields := range lists {
		covered := slices.ContainsFunc(objects, func(props []string) bool {
			return !slices.ContainsFunc(fields, func(f string) bool { return !slices.Contains(props, f) })
		})
		if !covered {
			var missing []string
			best := 0
			for _, props := range objects {
				var m []string
				for _, f := range fields {
					if !slices.Contains(props, f) {
						m = append(m, f)
					}
				}
				if n := len(fields) - len(m); n > best {
					best, missing = n, m
				}
			}
			t.Errorf("%s accepts %v; no object of %s has them all (the closest lacks %v): add them to the schema", where, fields, schemaFile, missing)
		}
	}
}

// parserFieldLists are the field lists of every fields/Fields call of the parser and the
// hook kinds, by file:line: the string literals among its arguments, package-level
// []string variables they name, and the hook kinds where hookKindNames() is appended.
func parserFieldLists(t *testing.T, root string, kinds []string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	dirs := []string{"internal/spec"}
	hooks, _ := filepath.Glob(filepath.Join(root, "internal/hooks/*hook"))
	for _, h := range hooks {
		rel, _ := filepath.Rel(root, h)
		dirs = append(dirs, rel)
	}
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(root, dir, "*.go"))
		vars := map[string][]string{}
		var parsed []*ast.File
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			parsed = append(parsed, af)
			for _, d := range af.Decls { // var xFields = []string{...}
				if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
					for _, sp := range g.Specs {
						vs := sp.(*ast.ValueSpec)
						for i, v := range vs.Values {
							if lits := literals(v); len(lits) > 0 && i < len(vs.Names) {
								vars[vs.Names[i].Name] = lits
							}
						}
					}
				}
			}
		}
		for _, af := range parsed {
			ast.Inspect(af, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || (sel.Sel.Name != "fields" && sel.Sel.Name != "Fields") || len(call.Args) < 3 {
					return true
				}
				var fields []string
				for _, a := range call.Args[2:] {
					fields = append(fields, literals(a)...)
					ast.Inspect(a, func(n ast.Node) bool {
						switch n := n.(type) {
						case *ast.Ident:
							fields = append(fields, vars[n.Name]...)
							if n.Name == "kinds" {
								fields = append(fields, kinds...)
							}
						}
						return true
					})
				}
				if len(fields) > 0 {
					pos := fset.Position(call.Pos())
					rel, _ := filepath.Rel(root, pos.Filename)
					out[rel+":"+strconv.Itoa(pos.Line)] = slices.Compact(slices.Sorted(slices.Values(fields)))
				}
				return true
			})
		}
	}
	return out
}

// literals are the string literals in e.
func literals(e ast.Expr) []string {
	var out []string
	ast.Inspect(e, func(n ast.Node) bool {
		if b, ok := n.(*ast.BasicLit); ok && b.Kind == token.STRING {
			if s, err := strconv.Unquote(b.Value); err == nil {
				out = append(out, s)
			}
		}
		return true
	})
	return out
}
