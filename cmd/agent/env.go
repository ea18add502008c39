package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// envPrefix: every flag can also come from the environment, CMP_PHASE_AGENT_<FLAG> (upper
// case, '-' as '_'), so an installation's parts each set their own flags without replacing
// the container's args or command (kustomize and Helm replace a list whole, but merge env
// by name). A flag on the command line wins.
const envPrefix = "CMP_PHASE_AGENT_"

// lookupEnv and environ read the environment (a test replaces them).
var (
	lookupEnv = os.LookupEnv
	environ   = os.Environ
)

// envName is the variable that sets flag name.
func envName(name string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// commandLineOnly are the flags no variable sets: they print something and exit.
func commandLineOnly(name string) bool { return name == "help" || name == "version" }

// flagsFromEnv sets each flag of fs not given on the command line from its variable, when
// set, and returns the names of the flags it set (said at start: a reader of the args
// alone would not see them). A CMP_PHASE_AGENT_ variable that names no flag is refused: a
// misspelt one would silently leave its flag at the default.
func flagsFromEnv(fs *pflag.FlagSet) ([]string, error) {
	known := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) { known[envName(f.Name)] = !commandLineOnly(f.Name) })
	known[faultEnv] = true // the e2e build's fault injection (faults.go), not a flag
	for _, kv := range environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, envPrefix) && !known[name] {
			return nil, fmt.Errorf("%s names no flag of the agent (fix: CMP_PHASE_AGENT_ and a flag's name in upper case with '_' for '-', e.g. CMP_PHASE_AGENT_INVENTORY_FROM; --version and --help only on the command line)", name)
		}
	}
	var set []string
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		v, ok := lookupEnv(envName(f.Name))
		if f.Changed || !ok || err != nil || commandLineOnly(f.Name) {
			return
		}
		if e := fs.Set(f.Name, v); e != nil {
			err = fmt.Errorf("%s=%q: %w (fix: a value --%s takes)", envName(f.Name), v, e, f.Name)
		}
		set = append(set, f.Name)
	})
	slices.Sort(set)
	return set, err
}

// twoDashes rewrites a long flag given with one dash (-namespace, as Go's flag package,
// which the agent used before cobra, took it) to two, so an installation's args keep
// working; it returns the args and the flags it rewrote (said at start, to be mended).
// Flag values are left as they are.
func twoDashes(args []string, fs *pflag.FlagSet) (out, rewritten []string) {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			return append(out, args[i:]...), rewritten
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		f := fs.Lookup(name)
		if f == nil || !strings.HasPrefix(arg, "-") {
			out = append(out, arg)
			continue
		}
		if !strings.HasPrefix(arg, "--") && len(name) > 1 {
			arg = "-" + arg
			rewritten = append(rewritten, name)
		}
		out = append(out, arg)
		if !hasValue && f.NoOptDefVal == "" && i+1 < len(args) {
			i++
			out = append(out, args[i]) // the flag's value
		}
	}
	return out, rewritten
}
