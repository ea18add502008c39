package commandhook

import (
	"fmt"
	"maps"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// specHalf is `type: command`'s spec half: a program the agent runs, judged by its exit
// status. Its timeout limit is the installation's --max-command-timeout.
var specHalf = spec.NewHookKind[Block](spec.HookKindDef[*Block]{
	Name: "command", MaxTimeout: spec.MaxCommandTimeout, TimeoutFix: "use at most 30m, or poll from a check",
	TimeoutSetting: spec.FlagMaxCommandTimeout, LimitTimeout: func(l spec.Limits) time.Duration { return l.CommandTimeout },
	Parse: parse,
})

// Block is the command block of a hook.
type Block struct {
	Command []string          `json:"command"`
	Env     map[string]string `json:"env,omitempty"`
}

// Fill fills the arguments (the program's name too) and the variables' values.
func (c *Block) Fill(f func(string) string) spec.HookBlock { return c.FillFields(hooks.AnyField(f)) }

// FillFields fills the program (never from a cluster value: hooks.Program), each argument
// (one element, never an option from a cluster value: hooks.Arg) and the variables'
// values (as written: hooks.Text).
func (c *Block) FillFields(f func(hooks.Field, string) string) spec.HookBlock {
	out := &Block{Env: maps.Clone(c.Env)}
	if c.Command != nil {
		out.Command = make([]string, len(c.Command))
	}
	for i, a := range c.Command {
		in := hooks.Arg
		if i == 0 {
			in = hooks.Program
		}
		out.Command[i] = f(hooks.Field{Path: fmt.Sprintf("command.command[%d]", i), In: in}, a)
	}
	for k, v := range out.Env {
		out.Env[k] = f(hooks.Field{Path: "command.env." + k, In: hooks.Text}, v)
	}
	return out
}

// parse reads the command block: argv, and the variables the command gets.
func parse(r *spec.HookReader) *Block {
	n := r.Block("add command.command")
	if n == nil {
		return nil
	}
	path := r.Path() + ".command"
	f := r.Fields(n, path, "command", "env")
	c := &Block{
		Command: r.StrList(r.Required(f, n, path, "command", `list the program and its arguments, e.g. ["./check.sh", "--env", "prod"]`), path+".command"),
		Env:     r.StrMap(f["env"], path+".env"),
	}
	if f["command"] != nil && len(c.Command) == 0 {
		r.Fail(f["command"], path+".command", "name the program to run", "is empty")
	}
	if len(c.Command) > 0 {
		if problem, fix := hooks.TemplateProblem(hooks.Program, c.Command[0]); problem != "" {
			r.Fail(f["command"], path+".command[0]", fix, "%s", problem)
		}
	}
	r.Mark("command.env", f["env"])
	envNames(r, f["env"], path+".env")
	return c
}

// envNames refuses every variable of env (a mapping) a command hook may not declare
// (CommandEnvProblem), each at its own line.
func envNames(r *spec.HookReader, env *yaml.Node, path string) {
	for i := 0; env != nil && env.Kind == yaml.MappingNode && i+1 < len(env.Content); i += 2 {
		k := env.Content[i]
		if why, fix := CommandEnvProblem(k.Value); k.Kind == yaml.ScalarNode && k.Value != "" && why != "" {
			r.Fail(k, path+"."+k.Value, fix, "%s", why)
		}
	}
}

// Violations are the ways the hook asks for more than l allows beyond its timeout: more
// variables than --max-env-vars.
func (c *Block) Violations(l spec.Limits) []spec.Violation {
	if len(c.Env) > l.EnvVars {
		return []spec.Violation{spec.CountViolation("command.env", "variables", len(c.Env), l.EnvVars, spec.FlagMaxEnvVars, "pass fewer variables")}
	}
	return nil
}
