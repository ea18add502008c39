package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

func TestFlagsHaveDefaultsAndBadOnesSayWhatToDo(t *testing.T) {
	o, err := parse(nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if o.agent.Namespace != contract.DefaultNamespace || !o.election.enabled || o.election.leaseDuration != 10*time.Second || !o.agent.HardRefresh {
		t.Fatalf("%+v", o)
	}
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"a selector that does not parse": {[]string{"--rollout-selector", "a in (b"}, "--rollout-selector"},
		"election timings out of order":  {[]string{"--renew-deadline", "20s"}, "--retry-period < --renew-deadline < --lease-duration"},
		"a stray argument":               {[]string{"serve"}, `unexpected argument "serve"`},
		"an unknown flag":                {[]string{"--interval", "1s"}, "flag provided but not defined"},
	} {
		t.Run(name, func(t *testing.T) {
			var stderr bytes.Buffer
			_, err := parse(c.args, &stderr)
			if err == nil || !strings.Contains(err.Error()+stderr.String(), c.want) {
				t.Fatalf("got %v %s, want %q", err, stderr.String(), c.want)
			}
		})
	}
}
