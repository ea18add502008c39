package commandhook

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/spec/spectest"
)

// TestCommandEnvRefused: validate refuses, at the variable's own field, every name that
// would let the spec run code as the agent (loader, shell, interpreter, tool), move its
// trust or traffic, or override what the agent sets; and every name outside
// ^[A-Z][A-Z0-9_]{0,127}$.
func init() { hooks.Register(Kind) } // as internal/hooks/all does, which this package's tests cannot import

// parseWithCheck parses a spec whose first phase has the check hook (YAML flow style).
func parseWithCheck(hook string) (*spec.Spec, error) { return spectest.ParseWithCheck(hook) }

const base = spectest.Base

// refusedEnv are names a command hook may not declare, each with why.
var refusedEnv = map[string]string{
	"BASH_ENV":                     `makes a shell run code`,
	"BASH_FUNC_ls%%":               `makes a shell run code`,
	"ENV":                          `makes a shell run code`,
	"SHELLOPTS":                    `makes a shell`,
	"PS4":                          `makes a shell`,
	"IFS":                          `makes a shell`,
	"LD_PRELOAD":                   `makes the dynamic loader`,
	"LD_LIBRARY_PATH":              `makes the dynamic loader`,
	"DYLD_INSERT_LIBRARIES":        `makes the dynamic loader`,
	"GCONV_PATH":                   `makes the dynamic loader or the C library`,
	"GLIBC_TUNABLES":               `makes the dynamic loader or the C library`,
	"PYTHONPATH":                   `makes an interpreter`,
	"PYTHONSTARTUP":                `makes an interpreter`,
	"PERL5OPT":                     `makes an interpreter`,
	"RUBYOPT":                      `makes an interpreter`,
	"NODE_OPTIONS":                 `makes an interpreter`,
	"JAVA_TOOL_OPTIONS":            `makes an interpreter`,
	"_JAVA_OPTIONS":                `makes an interpreter`,
	"GODEBUG":                      `makes an interpreter or a runtime`,
	"GIT_SSH_COMMAND":              `makes a tool run a program`,
	"GIT_CONFIG_COUNT":             `makes a tool run a program`,
	"PAGER":                        `makes a tool run a program`,
	"SSL_CERT_FILE":                `changes which servers a program trusts`,
	"HTTPS_PROXY":                  `changes which servers a program trusts or where it sends its traffic`,
	"http_proxy":                   `changes which servers`,
	"No_Proxy":                     `changes which servers`,
	"KUBERNETES_SERVICE_HOST":      `makes a tool act with credentials`,
	"PATH":                         `is set by the agent for every command hook (fix: remove it: the agent's value is the one the command sees)`,
	"HOME":                         `is set by the agent`,
	"TMPDIR":                       `is set by the agent`,
	"HOOK_TYPE":                    `is set by the agent`,
	"IDEMPOTENCY_KEY":              `is set by the agent`,
	"lower":                        `is not an upper-case variable name (fix: name it with upper-case letters, digits and _`,
	"1ST":                          `is not an upper-case variable name`,
	"A-B":                          `is not an upper-case variable name`,
	"A" + strings.Repeat("B", 128): `is not an upper-case variable name`,
	// issue 47: names the old deny-list let through; the allow-list refuses them all.
	"TAR_OPTIONS":      `is not a name a command hook may set (a program the command runs may read it) (fix: rename it to start with one of API_`,
	"RSYNC_RSH":        `is not a name a command hook may set`,
	"AWKLIBPATH":       `is not a name a command hook may set`,
	"VIMINIT":          `is not a name a command hook may set`,
	"ARGOCD_SERVER":    `is not a name a command hook may set`,
	"VAULT_ADDR":       `is not a name a command hook may set`,
	"AWS_ENDPOINT_URL": `is not a name a command hook may set`,
	"ZIPOPT":           `is not a name a command hook may set`,
	"LESS":             `is not a name a command hook may set`,
	"MAKEFLAGS":        `is not a name a command hook may set`,
	"TERMINFO":         `is not a name a command hook may set`,
	"NODE_ENV":         `is not a name a command hook may set`,
	"LANG":             `is not a name a command hook may set`,
	"KUBECONFIG_X":     `is not a name a command hook may set`,
	"API_PROXY":        `changes which servers`,
}

func TestCommandEnvRefused(t *testing.T) {
	for name, want := range refusedEnv {
		_, err := parseWithCheck("{name: a, type: command, command: {command: [./check.sh], env: {'" + name + "': '$(touch /tmp/pwned)'}}}")
		at := "spec.generators[0].deploymentStrategy.phases[0].checks[0].command.env." + name + ": " + want
		if err == nil || !strings.Contains(err.Error(), "spec.yaml:14: "+at) {
			t.Errorf("%s: got %v, want %q", name, err, at)
		}
		if err := CheckCommandEnv(map[string]string{"PARAM_OK": "1", name: "x"}); err == nil || !strings.Contains(err.Error(), "command.env."+name+": "+want) {
			t.Errorf("%s: the runner's check says %v", name, err)
		}
	}
}

// TestCommandEnvAllowed: seed 000's variables (every one its command hooks declare) and
// names under the allowed words pass.
func TestCommandEnvAllowed(t *testing.T) {
	env := "{DEPLOYMENT_ENV: production, API_ENDPOINT: 'https://api.example.com', KUBECONFIG: /etc/kubeconfig, TARGET_URL: x, " +
		"APP: payments, PARAM_NODE_ENV: production, INPUT_AWS_REGION: eu-west-1, CLUSTER: x, TOKEN: y, PARAM_" + strings.Repeat("B", 122) + ": x}"
	s, err := parseWithCheck("{name: a, type: command, command: {command: [./check.sh], env: " + env + "}}")
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckCommandEnv(s.Phases[0].Checks[0].Block.(*Block).Env); err != nil {
		t.Fatal(err)
	}
}
