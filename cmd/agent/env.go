package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
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

// flagsFromEnv sets each flag of fs not given on the command line from its variable, when
// set, and returns the names of the flags it set (said at start: a reader of the args
// alone would not see them). A CMP_PHASE_AGENT_ variable that names no flag is refused: a
// misspelt one would silently leave its flag at the default.
func flagsFromEnv(fs *flag.FlagSet) ([]string, error) {
	known := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { known[envName(f.Name)] = f.Name != "version" })
	known[faultEnv] = true // the e2e build's fault injection (faults.go), not a flag
	for _, kv := range environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, envPrefix) && !known[name] {
			return nil, fmt.Errorf("%s names no flag of the agent (fix: CMP_PHASE_AGENT_ and a flag's name in upper case with '_' for '-', e.g. CMP_PHASE_AGENT_INVENTORY_FROM; --version only on the command line)", name)
		}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var set []string
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		v, ok := lookupEnv(envName(f.Name))
		if given[f.Name] || !ok || err != nil || !known[envName(f.Name)] {
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
