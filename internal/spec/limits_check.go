package spec

import (
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// hookSite is where the parser found a hook: its field path and the lines of the fields a
// limit bounds, so a limit checked after parsing is reported like a parse error.
type hookSite struct {
	path  string
	line  int            // the hook's own
	lines map[string]int // Violation.Field → its line
	hook  Hook
}

// site records where hook h was read (n its mapping, f its fields, marked the lines its
// kind marked).
func (d *dec) site(n *yaml.Node, f map[string]*yaml.Node, path string, h Hook, marked map[string]int) {
	s := hookSite{path: path, line: n.Line, lines: marked, hook: h}
	if t := f["timeout"]; t != nil {
		s.lines["timeout"] = t.Line
	}
	d.sites = append(d.sites, s)
}

// CheckLimits reports every hook of s that asks for more than l allows (unset fields of l
// are their defaults), located like a parse error, with the setting to raise in the fix.
// Pure; none when every hook fits.
func CheckLimits(s *Spec, l Limits) Errors {
	return checkSites(s.File, s.sites, l)
}

func checkSites(file string, sites []hookSite, l Limits) Errors {
	var out Errors
	for _, s := range sites {
		for _, v := range l.Violations(s.hook) {
			line := s.lines[v.Field]
			if line == 0 {
				line = s.line
			}
			out = append(out, &Error{File: file, Line: line, Path: s.path + "." + v.Field, Msg: v.Msg, Fix: v.Fix})
		}
	}
	slices.SortStableFunc(out, func(a, b *Error) int { return a.Line - b.Line })
	return out
}
