package spec

import (
	"fmt"
	"strings"
	"time"
)

// Limits are an installation's caps on what hooks may ask for and do: seed 000's
// "configurable limits". The agent holds a hook over one (it is not started; the rollout
// waits there, saying which setting to raise); `cmp-phase validate` reports it with the
// same settings (flags of the same names). The parser refuses none of them, so a spec one
// installation accepts renders everywhere. The zero value of a field means its default.
type Limits struct {
	CommandTimeout time.Duration // --max-command-timeout: a command hook's timeout (30m)
	HTTPTimeout    time.Duration // --max-http-timeout: an http hook's timeout (10m)
	EnvVars        int           // --max-env-vars: variables a command hook declares (100)
	Headers        int           // --max-headers: headers an http hook declares (50)
	ResponseBody   int64         // --max-response-body: response bytes an http hook reads (1 MiB)
	HooksAtOnce    int           // --max-hooks-per-phase: pre- and post-hooks running at once (5)
	ChecksAtOnce   int           // --max-checks-per-phase: checks running at once (10)
	AppsPerPhase   int           // --max-apps-per-phase: members a phaseDeployment phase may have (1000)
	// JobLabels are the label keys a job hook's pod template may carry, besides the agent's
	// own (--job-allowed-labels; none by default). Reserved keys are never allowed (the job
	// kind refuses them: SettingsChecker).
	JobLabels []string
}

// Default limits of command and http hooks (seed 000); an installation sets its own.
const (
	MaxCommandTimeout = 30 * time.Minute
	MaxEnvVars        = 100
	MaxHTTPTimeout    = 10 * time.Minute
	MaxHeaders        = 50
)

// The settings' names, as flags of the agent and of `cmp-phase validate`.
const (
	FlagMaxCommandTimeout = "max-command-timeout"
	FlagMaxHTTPTimeout    = "max-http-timeout"
	FlagMaxEnvVars        = "max-env-vars"
	FlagMaxHeaders        = "max-headers"
	FlagMaxResponseBody   = "max-response-body"
	FlagMaxHooksPerPhase  = "max-hooks-per-phase"
	FlagMaxChecksPerPhase = "max-checks-per-phase"
	FlagMaxAppsPerPhase   = "max-apps-per-phase"
	FlagJobAllowedLabels  = "job-allowed-labels"
)

// MaxAppsPerPhase is seed 000's "max 1000 applications per phase"; ManyHooks is how many
// hooks and checks a phase may declare before the agent warns (seed 000's resource usage
// warnings).
const (
	MaxAppsPerPhase = 1000
	ManyHooks       = 10
)

// ManyHooksWarning is seed 000's resource-usage warning for a phase that declares more
// than ManyHooks hooks and checks, and whether it applies.
func ManyHooksWarning(ph Phase) (string, bool) {
	n := len(ph.PreHooks) + len(ph.PostHooks) + len(ph.Checks)
	return fmt.Sprintf("phase %s declares %d hooks and checks, more than %d: each runs, and the phase waits for all of them (fix: merge hooks, or move checks into one metric or job check)", ph.Name, n, ManyHooks), n > ManyHooks
}

// DefaultLimits are seed 000's.
func DefaultLimits() Limits {
	return Limits{
		CommandTimeout: MaxCommandTimeout, HTTPTimeout: MaxHTTPTimeout, EnvVars: MaxEnvVars, Headers: MaxHeaders,
		ResponseBody: 1 << 20, HooksAtOnce: 5, ChecksAtOnce: 10, AppsPerPhase: MaxAppsPerPhase,
	}
}

// OrDefaults fills every unset (zero or negative) field with its default.
func (l Limits) OrDefaults() Limits {
	d := DefaultLimits()
	orDur := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	orInt := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	orDur(&l.CommandTimeout, d.CommandTimeout)
	orDur(&l.HTTPTimeout, d.HTTPTimeout)
	orInt(&l.EnvVars, d.EnvVars)
	orInt(&l.Headers, d.Headers)
	orInt(&l.HooksAtOnce, d.HooksAtOnce)
	orInt(&l.ChecksAtOnce, d.ChecksAtOnce)
	orInt(&l.AppsPerPhase, d.AppsPerPhase)
	if l.ResponseBody <= 0 {
		l.ResponseBody = d.ResponseBody
	}
	return l
}

// Violation is one way a hook asks for more than the limits allow.
type Violation struct {
	Field   string // relative to the hook: timeout, command.env, http.headers, job.spec.template.metadata.labels.<key>
	Msg     string // e.g. "24h is over --max-command-timeout (30m)"
	Setting string // the flag to raise, e.g. --max-command-timeout
	Fix     string
}

// Violations are the ways h asks for more than l allows (unset fields of l are their
// defaults), in field order; none when it fits. Pure: the agent's engine and validate ask it.
func (l Limits) Violations(h Hook) []Violation {
	l = l.OrDefaults()
	var out []Violation
	if limit, setting, fix := l.timeoutOf(h.Type); h.Timeout > limit {
		if setting != "" {
			fix = fmt.Sprintf("raise --%s on the agent (and for cmp-phase validate) or shorten the timeout", setting)
		}
		out = append(out, Violation{Field: "timeout", Setting: flagName(setting),
			Msg: fmt.Sprintf("%s is over %s (%s)", Short(h.Timeout), limitName(h.Type, setting), Short(limit)), Fix: fix})
	}
	if b, ok := h.Block.(LimitedBlock); ok {
		out = append(out, b.Violations(l)...)
	}
	return out
}

// LimitedBlock is a block that says itself how it asks for more than the limits allow,
// beyond its timeout (which Violations checks for every kind).
type LimitedBlock interface {
	HookBlock
	// Violations are the ways the block asks for more than l (defaults filled) allows.
	Violations(l Limits) []Violation
}

// CountViolation is a hook's field holding n entries (what: variables, headers), over
// the setting's limit; shrink is the other fix than raising it.
func CountViolation(field, what string, n, limit int, setting, shrink string) Violation {
	return countViolation(field, what, n, limit, setting, shrink)
}

func countViolation(field, what string, n, limit int, setting, shrink string) Violation {
	return Violation{Field: field, Setting: "--" + setting,
		Msg: fmt.Sprintf("has %d %s, over --%s (%d)", n, what, setting, limit),
		Fix: fmt.Sprintf("raise --%s on the agent (and for cmp-phase validate) or %s", setting, shrink)}
}

// timeoutOf is the longest timeout a hook of kind may ask for, the setting that sets it
// (empty for a kind without one: its fixed limit and fix) and the kind's own fix.
func (l Limits) timeoutOf(kind string) (time.Duration, string, string) {
	if k, ok := HookKindOf(kind); ok {
		if s, ok := k.Half().(settingKind); ok {
			if limit, setting := s.TimeoutLimit(l); setting != "" {
				return limit, setting, ""
			}
		}
		limit, fix := k.MaxTimeout()
		return limit, "", fix
	}
	return 1<<63 - 1, "", ""
}

// settingKind is a kind whose timeout limit is an installation's setting
// (HookKindDef.TimeoutSetting).
type settingKind interface {
	// TimeoutLimit is l's limit on the kind's timeout and the setting's name; "" when the
	// kind has none.
	TimeoutLimit(l Limits) (time.Duration, string)
}

func flagName(setting string) string {
	if setting == "" {
		return ""
	}
	return "--" + setting
}

func limitName(kind, setting string) string {
	if setting == "" {
		return "the " + kind + " limit"
	}
	return "--" + setting
}

// Short writes a duration without trailing zero units: 24h, 30m, 1h30m, 90s.
func Short(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
