//go:build !cmpphase_faults

package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestAProductionBuildIgnoresTheCrashSwitch(t *testing.T) {
	var out bytes.Buffer
	t.Setenv(faultEnv, "exit-after-write")
	if f := faults(slog.New(slog.NewTextHandler(&out, nil))); f.AfterWrite != nil || f.BeforeWrite != nil || f.AfterRerender != nil || f.AfterMove != nil {
		t.Fatal("a build without -tags cmpphase_faults armed a fault")
	}
	if !strings.Contains(out.String(), "fault injection ignored") {
		t.Fatalf("says nothing of the ignored switch: %q", out.String())
	}
}
