package rerender

import (
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

func TestPhaseGenReadsTheParentsPluginEnv(t *testing.T) {
	p := &v1alpha1.Application{Spec: v1alpha1.ApplicationSpec{Source: &v1alpha1.ApplicationSource{Plugin: &v1alpha1.ApplicationSourcePlugin{
		Env: v1alpha1.Env{{Name: "OTHER", Value: "9"}, {Name: contract.EnvPhaseGen, Value: "42"}}}}}}
	if PhaseGen(p) != 42 {
		t.Fatal(PhaseGen(p))
	}
	p.Spec.Source.Plugin.Env[1].Value = "-3"
	if PhaseGen(p) != 0 {
		t.Fatal("a negative generation reads as none")
	}
}
