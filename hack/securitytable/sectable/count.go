package sectable

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// pkg is one directory's parsed Go files (tests included), its functions and its
// package-level variables by name.
type pkg struct {
	funcs  map[string]*ast.FuncDecl
	vars   map[string]ast.Expr
	consts []string // the literals of Fault* string constants, in the order written
}

// load parses every .go file of dir under root, or the one file dir names when it ends in
// .go. Build tags are not evaluated: the e2e suites' files are read as any other.
func load(root, dir string) (*pkg, error) {
	pattern := filepath.Join(root, filepath.FromSlash(dir))
	if !strings.HasSuffix(dir, ".go") {
		pattern = filepath.Join(pattern, "*.go")
	}
	paths, err := filepath.Glob(pattern)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no Go files", dir)
	}
	p := &pkg{funcs: map[string]*ast.FuncDecl{}, vars: map[string]ast.Expr{}}
	fset := token.NewFileSet()
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return nil, err
		}
		p.add(f)
	}
	return p, nil
}

// add records f's functions (methods left out) and package-level variables.
func (p *pkg) add(f *ast.File) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				p.funcs[d.Name.Name] = d
			}
		case *ast.GenDecl:
			for i := range d.Specs {
				if lit, ok := faultConst(d, i); ok {
					p.consts = append(p.consts, lit)
				}
			}
			for _, s := range d.Specs {
				if vs, ok := s.(*ast.ValueSpec); ok {
					for i, n := range vs.Names {
						if i < len(vs.Values) {
							p.vars[n.Name] = vs.Values[i]
						}
					}
				}
			}
		}
	}
}

// A rule says how to count one test's cases: besides the rows of the tables it ranges over,
// the calls it makes to helper (one case each, for a test written as a list of calls), less
// the rows holding the element skip (the near-misses a table also holds, which must pass).
type rule struct {
	helper, skip string
}

// cases counts the cases of test function name: the rows of each table it ranges over
// (a slice, array or map literal, written in the range clause or bound to a variable of the
// function or the package), outermost loops only, and its calls to r.helper; a test with
// neither is one case.
func (p *pkg) cases(name string, r rule) (int, error) {
	fn, ok := p.funcs[name]
	if !ok || !strings.HasPrefix(name, "Test") {
		return 0, fmt.Errorf("no test function %s", name)
	}
	n := 0
	ast.Inspect(fn.Body, func(node ast.Node) bool {
		switch node := node.(type) {
		case *ast.RangeStmt:
			n += p.rows(node.X, r.skip)
			return false
		case *ast.CallExpr:
			if id, ok := node.Fun.(*ast.Ident); ok && r.helper != "" && id.Name == r.helper {
				n++
			}
		}
		return true
	})
	return max(n, 1), nil
}

// rows is the number of elements of the table x is, those holding skip left out, or 0 when
// x is no table literal.
func (p *pkg) rows(x ast.Expr, skip string) int {
	switch x := x.(type) {
	case *ast.CompositeLit:
		switch x.Type.(type) {
		case *ast.ArrayType, *ast.MapType:
			n := 0
			for _, e := range x.Elts {
				if !holds(e, skip) {
					n++
				}
			}
			return n
		}
	case *ast.Ident:
		if v := bound(x); v != nil {
			return p.rows(v, skip)
		}
		if v, ok := p.vars[x.Name]; ok && x.Obj == nil {
			return p.rows(v, skip)
		}
	}
	return 0
}

// holds reports whether row e (a literal, or a map entry's value) has an element that is
// the identifier or literal skip as written.
func holds(e ast.Expr, skip string) bool {
	if skip == "" {
		return false
	}
	if kv, ok := e.(*ast.KeyValueExpr); ok {
		e = kv.Value
	}
	lit, ok := e.(*ast.CompositeLit)
	if !ok {
		return written(e, skip)
	}
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			el = kv.Value
		}
		if written(el, skip) {
			return true
		}
	}
	return false
}

// written reports whether e is the identifier or basic literal s as written.
func written(e ast.Expr, s string) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == s
	case *ast.BasicLit:
		return e.Value == s
	}
	return false
}

// bound is the value a local identifier was declared with (x := v, var x = v), or nil.
func bound(x *ast.Ident) ast.Expr {
	if x.Obj == nil {
		return nil
	}
	switch d := x.Obj.Decl.(type) {
	case *ast.AssignStmt:
		for i, l := range d.Lhs {
			if id, ok := l.(*ast.Ident); ok && id.Name == x.Name && i < len(d.Rhs) && len(d.Lhs) == len(d.Rhs) {
				return d.Rhs[i]
			}
		}
	case *ast.ValueSpec:
		for i, n := range d.Names {
			if n.Name == x.Name && i < len(d.Values) {
				return d.Values[i]
			}
		}
	}
	return nil
}
