package spec

import (
	"maps"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Default limits of command hooks (seed 000); an installation sets its own (Limits).
const (
	MaxCommandTimeout = 30 * time.Minute
	MaxEnvVars        = 100
)

// CommandKind is `type: command`: a program the agent runs, judged by its exit status.
var CommandKind = newKind[CommandHook]("command", MaxCommandTimeout, "use at most 30m, or poll from a check", parseCommand)

// CommandHook is the command block of a hook.
type CommandHook struct {
	Command []string          `json:"command"`
	Env     map[string]string `json:"env,omitempty"`
}

// Fill fills the arguments (the program's name too) and the variables' values.
func (c *CommandHook) Fill(f func(string) string) HookBlock {
	out := &CommandHook{Env: maps.Clone(c.Env)}
	if c.Command != nil {
		out.Command = make([]string, len(c.Command))
	}
	for i, a := range c.Command {
		out.Command[i] = f(a)
	}
	for k, v := range out.Env {
		out.Env[k] = f(v)
	}
	return out
}

// parseCommand reads the command block: argv, and the variables the command gets.
func parseCommand(d *dec, hn hookNode) *CommandHook {
	n := d.required(hn.fields, hn.node, hn.path, "command", "add command.command")
	if n == nil {
		return nil
	}
	path := hn.path + ".command"
	f := d.fields(n, path, "command", "env")
	c := &CommandHook{
		Command: d.strList(d.required(f, n, path, "command", `list the program and its arguments, e.g. ["./check.sh", "--env", "prod"]`), path+".command"),
		Env:     d.strMap(f["env"], path+".env"),
	}
	if f["command"] != nil && len(c.Command) == 0 {
		d.fail(f["command"], path+".command", "name the program to run", "is empty")
	}
	d.envNames(f["env"], path+".env")
	return c
}

// envNames refuses every variable of env (a mapping) a command hook may not declare
// (CommandEnvProblem), each at its own line.
func (d *dec) envNames(env *yaml.Node, path string) {
	for i := 0; env != nil && env.Kind == yaml.MappingNode && i+1 < len(env.Content); i += 2 {
		k := env.Content[i]
		if why, fix := CommandEnvProblem(k.Value); k.Kind == yaml.ScalarNode && k.Value != "" && why != "" {
			d.fail(k, join(path, k.Value), fix, "%s", why)
		}
	}
}
