package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

// envPrefix: every flag can also come from the environment, CMP_PHASE_AGENT_<FLAG> (upper
// case, '-' as '_'), so an installation's parts each set their own flags without replacing
// the container's args or command (kustomize and Helm replace a list whole, but merge env
// by name). A flag on the command line wins.
const envPrefix = "CMP_PHASE_AGENT_"

// lookupEnv reads the environment (a test replaces it).
var lookupEnv = os.LookupEnv

// envName is the variable that sets flag name.
func envName(name string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// flagsFromEnv sets each flag of fs not given on the command line from its variable, when set.
func flagsFromEnv(fs *flag.FlagSet) error {
	given := map[string]bool{"version": true} // --version only on the command line
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		v, ok := lookupEnv(envName(f.Name))
		if given[f.Name] || !ok || err != nil {
			return
		}
		if e := fs.Set(f.Name, v); e != nil {
			err = fmt.Errorf("%s=%q: %w (fix: a value --%s takes)", envName(f.Name), v, e, f.Name)
		}
	})
	return err
}
