//go:build cmpphase_faults

package main

import (
	"io"
	"log/slog"
	"testing"
)

func TestEveryFaultNameArmsItsHook(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for name, armed := range map[string]func() bool{
		"exit-after-write":    func() bool { return faults(log).AfterWrite != nil },
		"exit-before-write":   func() bool { return faults(log).BeforeWrite != nil },
		"exit-after-rerender": func() bool { return faults(log).AfterRerender != nil },
		"exit-after-move":     func() bool { return faults(log).AfterMove != nil },
	} {
		t.Setenv(faultEnv, name)
		if !armed() {
			t.Errorf("%s=%s arms nothing", faultEnv, name)
		}
	}
	t.Setenv(faultEnv, "")
	if f := faults(log); f.AfterWrite != nil || f.BeforeWrite != nil || f.AfterRerender != nil || f.AfterMove != nil {
		t.Error("no fault asked for, one armed")
	}
}
