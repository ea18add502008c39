package commandhook

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

func fillArgv(argv []string, v string) (*Block, error) {
	vars := hooks.PhaseVars("guestbook", "argocd", "prod")
	vars["name"], vars["server"], vars["metadata.labels.env"] = v, v, v
	h, _, err := hooks.Template(spec.Hook{Name: "smoke", Type: "command", Block: &Block{Command: argv, Env: map[string]string{"CLUSTER": "{{name}}"}}}, vars, nil)
	if err != nil {
		return nil, err
	}
	return h.Block.(*Block), nil
}

// TestAClusterValueIsOneArgumentAndNeverAnOption: a cluster value stays one argv
// element; one that would start an element with - is refused, one after literal text
// (--cluster={{name}}) is not; env values take it as written.
func TestAClusterValueIsOneArgumentAndNeverAnOption(t *testing.T) {
	for _, v := range []string{"--kubeconfig=/etc/x", "-rf", "-"} {
		if _, err := fillArgv([]string{"./check.sh", "{{name}}"}, v); err == nil || !strings.Contains(err.Error(), "hook smoke: command.command[1]: cluster field {{name}}: value starts with -") {
			t.Errorf("%q: %v", v, err)
		}
		if b, err := fillArgv([]string{"./check.sh", "--cluster={{name}}", "x{{server}}"}, v); err != nil || len(b.Command) != 3 || b.Command[1] != "--cluster="+v || b.Env["CLUSTER"] != v {
			t.Errorf("%q after literal text: %+v %v", v, b, err)
		}
	}
	for _, v := range []string{"a b", "a\nb --x", "prod-1", `x","admin":true`} {
		if b, err := fillArgv([]string{"./check.sh", "{{name}}"}, v); err != nil || len(b.Command) != 2 || b.Command[1] != v {
			t.Errorf("%q: %+v %v", v, b, err)
		}
	}
}

// TestTheProgramIsNeverAClusterValue: validate and the run refuse a cluster field in the
// program; a phase variable there is the operator's.
func TestTheProgramIsNeverAClusterValue(t *testing.T) {
	for _, prog := range []string{"{{name}}", "./checks/{{metadata.labels.env}}.sh"} {
		if _, err := parseWithCheck("{name: c, type: command, command: {command: ['" + prog + "', x]}}"); err == nil ||
			!strings.Contains(err.Error(), "command.command[0]") || !strings.Contains(err.Error(), "would choose the program") || !strings.Contains(err.Error(), "fix: name the program literally") {
			t.Errorf("validate %s: %v", prog, err)
		}
		if _, err := fillArgv([]string{prog, "x"}, "prod-1"); err == nil || !strings.Contains(err.Error(), "would choose the program") {
			t.Errorf("run %s: %v", prog, err)
		}
	}
	if _, err := parseWithCheck("{name: c, type: command, command: {command: ['./{{.phase.name}}.sh', '{{name}}']}}"); err != nil {
		t.Errorf("a phase variable in the program: %v", err)
	}
}
