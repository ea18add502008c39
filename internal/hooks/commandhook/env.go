package commandhook

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// The variables a command hook may declare (command.env). The command runs as the agent,
// so a variable that makes the dynamic loader, a shell, an interpreter or a tool run code,
// load code, configuration or trust from elsewhere, or send traffic elsewhere would run a
// spec author's code with the agent's rights through any allowed script (BASH_ENV='$(…)'
// with a bash script is enough; TAR_OPTIONS made GNU tar run a program). No table of such
// names can be complete, so the names a spec may set are an allow-list: KUBECONFIG, and
// names whose first word (up to the first _, or the whole name) is one of EnvWords, words
// no program reads its settings under. The refused table below only explains a refusal;
// it also refuses what it names should an allowed word ever start one. Asked by the parser
// (validate, the sidecar) and again by the runner right before it starts the command.

// EnvWords are the first words of the names a command hook may declare (docs/hooks/command.md
// lists them): seed 000's DEPLOYMENT_ENV, API_ENDPOINT and TARGET_URL, and the like.
var EnvWords = []string{"API", "APP", "CHECK", "CLUSTER", "DEPLOYMENT", "EXPECTED", "INPUT", "PARAM", "RELEASE",
	"SERVICE", "TARGET", "TICKET", "TOKEN"}

// EnvNames are the other names a command hook may declare: KUBECONFIG (seed 000 declares
// it; it can only name a file on the agent's machine, which the operator put there).
var EnvNames = []string{"KUBECONFIG"}

// allowedEnvName reports whether name is on the allow-list.
func allowedEnvName(name string) bool {
	first, _, _ := strings.Cut(name, "_")
	return slices.Contains(EnvNames, name) || slices.Contains(EnvWords, first)
}

// notAllowedFix is the fix for a name off the allow-list.
var notAllowedFix = "rename it to start with one of " + strings.Join(EnvWords, "_, ") +
	"_ (e.g. PARAM_<NAME>), and let the script read it and set what its programs read"

// commandEnvName is what a declared variable's name must look like: upper case letters,
// digits and _, starting with a letter, at most 128 characters. Lower-case names
// (http_proxy) are refused with it.
var commandEnvName = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,127}$`)

// envRule refuses the names it matches, saying why.
type envRule struct {
	names    []string // exact names
	prefixes []string // any name starting with one
	suffixes []string // any name ending with one
	why      string
	fix      string // empty: envFix
}

// envFix is the fix for a refused variable the agent does not set itself.
const envFix = "remove it: a command hook cannot set it; give a setting the script needs another name, or let the script set it"

// commandEnvRules are known refused variables, by what they would let a spec do: they say
// why a name is refused (the allow-list refuses them too). They are matched against the
// upper-cased name, so http_proxy is refused as HTTP_PROXY is.
var commandEnvRules = []envRule{
	{names: []string{"PATH", "HOME", "TMPDIR", contract.EnvAppSetName, contract.EnvAppSetNamespace, contract.EnvHookName,
		contract.EnvHookType, contract.EnvHookKind, contract.EnvPhaseName, contract.EnvRolloutRevision, contract.EnvClusterName,
		contract.EnvIdempotencyKey},
		why: "is set by the agent for every command hook", fix: "remove it: the agent's value is the one the command sees"},
	{names: []string{"ENV", "SHELLOPTS", "BASHOPTS", "PS0", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "IFS", "CDPATH",
		"GLOBIGNORE", "ZDOTDIR"}, prefixes: []string{"BASH_"},
		why: "makes a shell run code or change how it reads a script"},
	{names: []string{"GCONV_PATH", "GLIBC_TUNABLES", "LOCPATH", "NLSPATH", "HOSTALIASES", "RESOLV_HOST_CONF", "LOCALDOMAIN",
		"RES_OPTIONS"}, prefixes: []string{"LD_", "DYLD_", "MALLOC_"},
		why: "makes the dynamic loader or the C library load code or data from elsewhere"},
	{names: []string{"NODE_OPTIONS", "NODE_PATH", "NODE_REPL_EXTERNAL_MODULE", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
		"JDK_JAVA_OPTIONS", "JAVA_HOME", "CLASSPATH", "MAVEN_OPTS", "GRADLE_OPTS", "PHPRC", "PHP_INI_SCAN_DIR", "TCLLIBPATH",
		"DOTNET_STARTUP_HOOKS", "DOTNET_ADDITIONAL_DEPS", "GOFLAGS", "GOROOT", "GOPATH", "GOENV", "GOTOOLCHAIN", "GOPROXY",
		"GONOPROXY", "GOPRIVATE", "GOINSECURE", "GOSUMDB", "GONOSUMDB", "GOEXPERIMENT", "GODEBUG", "GOTRACEBACK"},
		prefixes: []string{"PYTHON", "PERL", "RUBY", "GEM_", "BUNDLE_", "NPM_CONFIG_", "LUA_", "CORECLR_", "CGO_"},
		why:      "makes an interpreter or a runtime load code or options from elsewhere"},
	{names: []string{"EDITOR", "VISUAL", "PAGER", "MANPAGER", "BROWSER", "LESSOPEN", "LESSCLOSE", "LESSKEY", "SUDO_ASKPASS"},
		prefixes: []string{"GIT_", "SSH_", "KUBECTL_", "HELM_"},
		why:      "makes a tool run a program or read its configuration from elsewhere"},
	{names: []string{"SSL_CERT_FILE", "SSL_CERT_DIR", "SSLKEYLOGFILE", "CURL_CA_BUNDLE", "CURL_HOME", "WGETRC",
		"REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "NODE_TLS_REJECT_UNAUTHORIZED", "AWS_CA_BUNDLE"},
		prefixes: []string{"OPENSSL_"}, suffixes: []string{"_PROXY"},
		why: "changes which servers a program trusts or where it sends its traffic"},
	{names: []string{"AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_WEB_IDENTITY_TOKEN_FILE",
		"AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "GOOGLE_APPLICATION_CREDENTIALS",
		"CLOUDSDK_CONFIG", "AZURE_CONFIG_DIR", "AZURE_FEDERATED_TOKEN_FILE", "DOCKER_CONFIG", "DOCKER_HOST"},
		prefixes: []string{"KUBERNETES_"},
		why:      "makes a tool act with credentials or configuration other than the operator's (the agent's own, in its pod)"},
}

// CommandEnvProblem says why a command hook may not declare the variable name, and the
// fix; both empty when it may.
func CommandEnvProblem(name string) (why, fix string) {
	upper := strings.ToUpper(name)
	for _, r := range commandEnvRules {
		if r.matches(upper) {
			return r.why, cmp.Or(r.fix, envFix)
		}
	}
	if !commandEnvName.MatchString(name) {
		return "is not an upper-case variable name", "name it with upper-case letters, digits and _, starting with a letter, at most 128 characters"
	}
	if !allowedEnvName(name) {
		return "is not a name a command hook may set (a program the command runs may read it)", notAllowedFix
	}
	return "", ""
}

func (r envRule) matches(upper string) bool {
	if slices.Contains(r.names, upper) {
		return true
	}
	for _, p := range r.prefixes {
		if strings.HasPrefix(upper, p) {
			return true
		}
	}
	for _, s := range r.suffixes {
		if strings.HasSuffix(upper, s) {
			return true
		}
	}
	return false
}

// CheckCommandEnv is the runner's check of a command hook's declared variables, right
// before it runs: the first refused name (in name order), as an error naming the field and
// the fix; nil when every name may be declared.
func CheckCommandEnv(env map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if why, fix := CommandEnvProblem(k); why != "" {
			return fmt.Errorf("command.env.%s: %s (fix: %s)", k, why, fix)
		}
	}
	return nil
}
