package spec

import (
	"flag"
	"fmt"
	"slices"
	"strings"
)

// BindFlags registers the limits a spec is checked against, with seed 000's defaults:
// --max-command-timeout, --max-http-timeout, --max-env-vars and --max-headers, and
// --job-allowed-labels (none). The agent and `cmp-phase validate` both bind them, so the
// two agree when given the same values.
func (l *Limits) BindFlags(fs *flag.FlagSet) {
	d := DefaultLimits()
	fs.DurationVar(&l.CommandTimeout, FlagMaxCommandTimeout, d.CommandTimeout, "longest timeout a command hook may ask for (a longer one is not run: the rollout waits, saying so)")
	fs.DurationVar(&l.HTTPTimeout, FlagMaxHTTPTimeout, d.HTTPTimeout, "longest timeout an http hook may ask for")
	fs.IntVar(&l.EnvVars, FlagMaxEnvVars, d.EnvVars, "variables a command hook may declare")
	fs.IntVar(&l.Headers, FlagMaxHeaders, d.Headers, "headers an http hook may declare")
	fs.Func(FlagJobAllowedLabels, "label keys a job hook's pod template may carry (comma-separated or repeated; never cmp-phase.io/, app.kubernetes.io/, Kubernetes' or Argo CD's own)", func(v string) error {
		for _, k := range strings.Split(v, ",") {
			if k = strings.TrimSpace(k); k != "" && !slices.Contains(l.JobLabels, k) {
				l.JobLabels = append(l.JobLabels, k)
			}
		}
		return nil
	})
}

// BindRunFlags registers the limits only a running agent applies, with seed 000's
// defaults: --max-response-body, --max-hooks-per-phase, --max-checks-per-phase and
// --max-apps-per-phase.
func (l *Limits) BindRunFlags(fs *flag.FlagSet) {
	d := DefaultLimits()
	fs.Int64Var(&l.ResponseBody, FlagMaxResponseBody, d.ResponseBody, "bytes of an http hook's response read (a longer one is Errored)")
	fs.IntVar(&l.HooksAtOnce, FlagMaxHooksPerPhase, d.HooksAtOnce, "pre- and post-hooks running at once in a phase")
	fs.IntVar(&l.ChecksAtOnce, FlagMaxChecksPerPhase, d.ChecksAtOnce, "checks running at once in a phase")
	fs.IntVar(&l.AppsPerPhase, FlagMaxAppsPerPhase, d.AppsPerPhase, "members a phaseDeployment phase may have (a rollout with a larger one does not start)")
}

// Validate refuses a cap that is zero or negative (flags would otherwise read it as the
// default), and a setting a registered kind refuses (SettingsChecker: an allowed job label
// key that is reserved or not a label key).
func (l Limits) Validate() error {
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{FlagMaxCommandTimeout, l.CommandTimeout > 0}, {FlagMaxHTTPTimeout, l.HTTPTimeout > 0},
		{FlagMaxEnvVars, l.EnvVars > 0}, {FlagMaxHeaders, l.Headers > 0},
		{FlagMaxResponseBody, l.ResponseBody > 0}, {FlagMaxHooksPerPhase, l.HooksAtOnce > 0}, {FlagMaxChecksPerPhase, l.ChecksAtOnce > 0},
		{FlagMaxAppsPerPhase, l.AppsPerPhase > 0},
	} {
		if !c.ok {
			return fmt.Errorf("--%s must be positive (fix: leave it out for seed 000's default)", c.name)
		}
	}
	for _, k := range hookKinds {
		if c, ok := k.(SettingsChecker); ok {
			if err := c.CheckSettings(l); err != nil {
				return err
			}
		}
	}
	return nil
}

// SettingsChecker is a kind that refuses settings of the installation's limits no
// installation may choose (the job kind: a reserved label key in --job-allowed-labels).
type SettingsChecker interface {
	// CheckSettings is an error naming the setting and the fix, nil when l is fine.
	CheckSettings(l Limits) error
}
