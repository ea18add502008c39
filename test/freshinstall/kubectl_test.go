//go:build e2e

package freshinstall

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/test/framework"
)

// kubectl runs the real kubectl against the stack, as a user at their terminal would.
func kubectl(t *testing.T, e *framework.Env, args ...string) string {
	t.Helper()
	out, err := kubectlErr(e, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// internet is what commands need to reach the fake GitHub of the running test (none: none).
var internet []string

func kubectlErr(e *framework.Env, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Tools.Kubectl, append([]string{"--kubeconfig", e.Kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), internet...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
