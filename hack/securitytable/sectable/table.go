package sectable

import (
	"fmt"
	"strings"
)

// A Case is one test's figure: where it is and how many cases its tables hold.
type Case struct {
	Dir, Test string
	Cases     int
}

// An Area is one row of the table: an area's tests and their cases together.
type Area struct {
	Name, Handled string
	Tests         []Case
}

// Total is the area's cases over all its tests.
func (a Area) Total() int {
	n := 0
	for _, c := range a.Tests {
		n += c.Cases
	}
	return n
}

// Areas counts every area's cases in the repository at root.
func Areas(root string) ([]Area, error) {
	pkgs := map[string]*pkg{}
	var out []Area
	for _, a := range areas {
		row := Area{Name: a.name, Handled: a.handled}
		for _, t := range a.tests {
			c, err := count(root, pkgs, t)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", a.name, err)
			}
			row.Tests = append(row.Tests, c)
		}
		out = append(out, row)
	}
	return out, nil
}

// count counts the cases of test "dir:TestName", parsing dir once.
func count(root string, pkgs map[string]*pkg, test string) (Case, error) {
	fields := strings.Fields(test)
	dir, name, ok := strings.Cut(fields[0], ":")
	if !ok {
		return Case{}, fmt.Errorf("%q is not dir:TestName", test)
	}
	var r rule
	for _, f := range fields[1:] {
		switch f[0] {
		case '+':
			r.helper = f[1:]
		case '!':
			r.skip = f[1:]
		default:
			return Case{}, fmt.Errorf("%q: %q is neither +helper nor !skip", test, f)
		}
	}
	p, ok := pkgs[dir]
	if !ok {
		var err error
		if p, err = load(root, dir); err != nil {
			return Case{}, err
		}
		pkgs[dir] = p
	}
	n, err := p.cases(name, r)
	if err != nil {
		return Case{}, fmt.Errorf("%s: %w", dir, err)
	}
	return Case{Dir: dir, Test: name, Cases: n}, nil
}
