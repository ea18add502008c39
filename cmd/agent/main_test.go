package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// parseArgs reads args as the agent does, its help and version thrown away.
func parseArgs(args []string) (options, error) {
	o, _, err := parse(args, io.Discard, io.Discard)
	return o, err
}

func TestFlagsHaveDefaultsAndBadOnesSayWhatToDo(t *testing.T) {
	o, err := parseArgs(nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.agent.Namespace != contract.DefaultNamespace || !o.election.enabled || o.election.leaseDuration != 10*time.Second || !o.agent.HardRefresh {
		t.Fatalf("%+v", o)
	}
	if o.agent.ArgoCD != nil {
		t.Fatal("no warming unless argocd-server is given")
	}
	if !reflect.DeepEqual(o.agent.Limits, spec.DefaultLimits()) {
		t.Fatalf("limits default to seed 000's: %+v", o.agent.Limits)
	}
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"a selector that does not parse": {[]string{"--rollout-selector", "a in (b"}, "--rollout-selector"},
		"election timings out of order":  {[]string{"--renew-deadline", "20s"}, "--retry-period < --renew-deadline < --lease-duration"},
		"a stray argument":               {[]string{"serve"}, `unexpected argument "serve"`},
		"an unknown flag":                {[]string{"--interval", "1s"}, "unknown flag: --interval"},
		"an unknown command":             {[]string{"serve", "--namespace", "x"}, `unexpected argument "serve"`},
		"a zero limit":                   {[]string{"--max-checks-per-phase", "0"}, "--max-checks-per-phase must be positive"},
		"a reserved Job label allowed":   {[]string{"--job-allowed-labels", "app.kubernetes.io/name"}, "--job-allowed-labels: app.kubernetes.io/name is what Argo CD's Services"},
		"a token without a server":       {[]string{"--argocd-token-file", "/t"}, "need --argocd-server"},
		"a server that is no URL":        {[]string{"--argocd-server", "argocd-server:443", "--argocd-token-file", "/t"}, "is not an http(s) URL"},
		"a server without a token":       {[]string{"--argocd-server", "https://argocd-server"}, "--argocd-token-file is empty"},
		"an unknown inventory source":    {[]string{"--inventory-from", "etcd"}, `--inventory-from "etcd" is neither secrets nor argocd`},
		"argocd's clusters without it":   {[]string{"--inventory-from", "argocd"}, "fix: set --argocd-server and --argocd-token-file"},
		"a zero inventory poll":          {[]string{"--inventory-poll", "0s"}, "--inventory-poll 0s is not positive"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parseArgs(c.args)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

// TestArgoCDFlagsMakeTheClient: with a server and a token file the agent warms manifests.
func TestArgoCDFlagsMakeTheClient(t *testing.T) {
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("tok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := parseArgs([]string{"--argocd-server", "https://argocd-server.argocd.svc", "--argocd-token-file", token})
	if err != nil || o.agent.ArgoCD == nil {
		t.Fatalf("%v %v", err, o.agent.ArgoCD)
	}
}

// TestLimitFlags: the installation's limits are settings; validate's have the same names.
func TestLimitFlags(t *testing.T) {
	o, err := parseArgs([]string{"--max-command-timeout", "24h", "--max-http-timeout", "15m", "--max-env-vars", "200",
		"--max-headers", "80", "--max-response-body", "4096", "--max-hooks-per-phase", "2", "--max-checks-per-phase", "3", "--max-apps-per-phase", "2000",
		"--job-allowed-labels", "team,example.com/tier"})
	if err != nil {
		t.Fatal(err)
	}
	want := spec.Limits{CommandTimeout: 24 * time.Hour, HTTPTimeout: 15 * time.Minute, EnvVars: 200, Headers: 80,
		ResponseBody: 4096, HooksAtOnce: 2, ChecksAtOnce: 3, AppsPerPhase: 2000, JobLabels: []string{"team", "example.com/tier"}}
	if !reflect.DeepEqual(o.agent.Limits, want) {
		t.Fatalf("got %+v, want %+v", o.agent.Limits, want)
	}
}

// TestFlagsComeFromTheEnvironmentToo: CMP_PHASE_AGENT_<FLAG> sets a flag not on the
// command line (what an installation's component adds without replacing the args); the
// command line wins, and a bad value names the variable and the fix.
func TestFlagsComeFromTheEnvironmentToo(t *testing.T) {
	env := map[string]string{"CMP_PHASE_AGENT_INVENTORY_FROM": "argocd", "CMP_PHASE_AGENT_INVENTORY_POLL": "5s",
		"CMP_PHASE_AGENT_ARGOCD_SERVER": "https://argocd-server.argocd.svc", "CMP_PHASE_AGENT_WORKERS": "3"}
	lookupEnv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	environ = func() []string {
		var kv []string
		for k, v := range env {
			kv = append(kv, k+"="+v)
		}
		return kv
	}
	t.Cleanup(func() { lookupEnv, environ = os.LookupEnv, os.Environ })
	env["CMP_PHASE_AGENT_ARGOCD_TOKEN_FILE"] = filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(env["CMP_PHASE_AGENT_ARGOCD_TOKEN_FILE"], []byte("t"), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := parseArgs([]string{"--workers", "5"})
	if err != nil {
		t.Fatal(err)
	}
	if o.agent.InventoryFrom != "argocd" || o.agent.InventoryPoll != 5*time.Second || o.agent.ArgoCD == nil || o.agent.Workers != 5 {
		t.Fatalf("%+v", o.agent)
	}
	if !slices.Equal(o.fromEnv, []string{"argocd-server", "argocd-token-file", "inventory-from", "inventory-poll"}) {
		t.Fatalf("said as from the environment: %v", o.fromEnv)
	}
	env["CMP_PHASE_AGENT_FAULT"] = "" // the e2e build's fault switch is no flag, and no mistake
	env["CMP_PHASE_AGENT_INVENTORY_POLL"] = "soon"
	if _, err := parseArgs(nil); err == nil || !strings.Contains(err.Error(), `CMP_PHASE_AGENT_INVENTORY_POLL="soon"`) || !strings.Contains(err.Error(), "fix: ") {
		t.Fatalf("%v", err)
	}
	if _, start, err := parse([]string{"--version"}, io.Discard, io.Discard); err != nil || start {
		t.Fatalf("--version reads no environment: %v", err)
	}
	if _, start, err := parse([]string{"version", "-o", "json"}, io.Discard, io.Discard); err != nil || start {
		t.Fatalf("version reads no environment: %v", err)
	}
	env["CMP_PHASE_AGENT_INVENTORY_POLL"] = "5s"
	env["CMP_PHASE_AGENT_INVENTORY_FORM"] = "argocd"
	if _, err := parseArgs(nil); err == nil || !strings.Contains(err.Error(), "CMP_PHASE_AGENT_INVENTORY_FORM names no flag") {
		t.Fatalf("a misspelt variable: %v", err)
	}
}
