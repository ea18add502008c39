package tmpl

import (
	"fmt"
	"reflect"
	"strings"
	"text/template"
	"text/template/parse"
)

// marks are the actions compile puts into a template: {{cmpPhaseStep}} at the head of
// every loop body, so that no loop runs a round without taking a step of the execution's
// budget — even a loop whose body calls nothing — and {{cmpPhaseEnter}} and
// {{cmpPhaseLeave}} around every definition's body, so that a template call takes a step
// and recursion has a depth.
var marks = map[string]parse.Node{stepFunc: nil, enterFunc: nil, leaveFunc: nil}

func init() {
	for name := range marks {
		t := template.Must(template.New("mark").Funcs(template.FuncMap{name: func() string { return "" }}).Parse("{{" + name + "}}"))
		marks[name] = t.Tree.Root.Nodes[0]
	}
}

// instrument checks a parsed template against b before it ever runs — refused functions,
// loops whose literal sizes multiply past b.Steps, a call whose literal arguments already
// cost more than b.Bytes — and puts a step at the head of every loop body and definition.
// Its error names the line and column in the template and the fix.
func instrument(t *template.Template, b Bounds) error {
	for _, d := range t.Templates() {
		if d.Tree == nil || d.Root == nil {
			continue
		}
		c := checker{tree: d.Tree, bounds: b}
		if err := c.list(d.Root, 1); err != nil {
			return err
		}
		if d.Name() != t.Name() {
			d.Root.Nodes = append(append([]parse.Node{marks[enterFunc]}, d.Root.Nodes...), marks[leaveFunc])
		}
	}
	return nil
}

type checker struct {
	tree   *parse.Tree
	bounds Bounds
}

// where is "line L, column C" of n in its template.
func (c checker) where(n parse.Node) string {
	loc, _ := c.tree.ErrorContext(n)
	parts := strings.Split(loc, ":")
	if len(parts) < 3 {
		return loc
	}
	return "line " + parts[len(parts)-2] + ", column " + parts[len(parts)-1]
}

func (c checker) list(l *parse.ListNode, rounds int) error {
	if l == nil {
		return nil
	}
	for _, n := range l.Nodes {
		if err := c.node(n, rounds); err != nil {
			return err
		}
	}
	return nil
}

func (c checker) node(n parse.Node, rounds int) error {
	switch n := n.(type) {
	case *parse.ActionNode:
		return c.pipe(n.Pipe)
	case *parse.IfNode:
		return c.branch(&n.BranchNode, rounds)
	case *parse.WithNode:
		return c.branch(&n.BranchNode, rounds)
	case *parse.RangeNode:
		return c.rangeNode(n, rounds)
	case *parse.TemplateNode:
		return c.pipe(n.Pipe)
	}
	return nil
}

func (c checker) branch(b *parse.BranchNode, rounds int) error {
	if err := c.pipe(b.Pipe); err != nil {
		return err
	}
	if err := c.list(b.List, rounds); err != nil {
		return err
	}
	return c.list(b.ElseList, rounds)
}

// rangeNode checks a loop: its literal size times the rounds of the loops around it must
// stay within the steps; then the body gets its step.
func (c checker) rangeNode(n *parse.RangeNode, rounds int) error {
	if err := c.pipe(n.Pipe); err != nil {
		return err
	}
	if size, ok := c.literalRounds(n.Pipe); ok {
		rounds = mul(rounds, size)
		if rounds > c.bounds.Steps {
			return fmt.Errorf("%w: %s: the loops here run %d rounds, more than the %d a template may (fix: range over less, or nest fewer loops; docs/spec.md#template-bounds)",
				ErrRefused, c.where(n), rounds, c.bounds.Steps)
		}
	}
	if err := c.list(n.List, rounds); err != nil {
		return err
	}
	if err := c.list(n.ElseList, rounds); err != nil {
		return err
	}
	if n.List != nil {
		n.List.Nodes = append([]parse.Node{marks[stepFunc]}, n.List.Nodes...)
	}
	return nil
}

// literalRounds is how many rounds a range over a literal runs: {{range 1000}} or
// {{range until 1000}} (and untilStep with literals).
func (c checker) literalRounds(p *parse.PipeNode) (int, bool) {
	if p == nil || len(p.Cmds) != 1 {
		return 0, false
	}
	args := p.Cmds[0].Args
	if len(args) == 1 {
		if num, ok := args[0].(*parse.NumberNode); ok && num.IsInt {
			return abs(clampInt(float64(num.Int64))), true
		}
	}
	id, ok := args[0].(*parse.IdentifierNode)
	if !ok || (id.Ident != "until" && id.Ident != "untilStep") {
		return 0, false
	}
	vals, ok := literals(args[1:])
	if !ok {
		return 0, false
	}
	a := call{args: vals}
	if id.Ident == "until" {
		return abs(a.int(0)), true
	}
	return untilStepCount(a.int(0), a.int(1), a.int(2)), true
}

func (c checker) pipe(p *parse.PipeNode) error {
	if p == nil {
		return nil
	}
	for _, cmd := range p.Cmds {
		if err := c.command(cmd); err != nil {
			return err
		}
	}
	return nil
}

// command refuses a refused function, and a call whose literal arguments already cost
// more than a whole execution may build.
func (c checker) command(cmd *parse.CommandNode) error {
	for _, a := range cmd.Args {
		switch a := a.(type) {
		case *parse.PipeNode:
			if err := c.pipe(a); err != nil {
				return err
			}
		case *parse.IdentifierNode:
			if reason, ok := refused[a.Ident]; ok {
				return fmt.Errorf("%s: %w", c.where(a), refusal(a.Ident, reason))
			}
		}
	}
	id, ok := cmd.Args[0].(*parse.IdentifierNode)
	if !ok {
		return nil
	}
	est, has := costs[id.Ident]
	vals, lit := literals(cmd.Args[1:])
	if !has || !lit || len(vals) == 0 {
		return nil
	}
	if n := est(call{args: vals, limit: c.bounds.Bytes}); n < 0 || n > c.bounds.Bytes {
		return fmt.Errorf("%w: %s: %s with these arguments would build more than the %d bytes a template may (fix: use smaller numbers; docs/spec.md#template-bounds)",
			ErrRefused, c.where(id), id.Ident, c.bounds.Bytes)
	}
	return nil
}

// literals are nodes' values when every one is a number or string literal.
func literals(nodes []parse.Node) ([]reflect.Value, bool) {
	out := make([]reflect.Value, 0, len(nodes))
	for _, n := range nodes {
		switch n := n.(type) {
		case *parse.NumberNode:
			switch {
			case n.IsInt:
				out = append(out, reflect.ValueOf(int(clampInt(float64(n.Int64)))))
			case n.IsFloat:
				out = append(out, reflect.ValueOf(n.Float64))
			default:
				return nil, false
			}
		case *parse.StringNode:
			out = append(out, reflect.ValueOf(n.Text))
		default:
			return nil, false
		}
	}
	return out, true
}
