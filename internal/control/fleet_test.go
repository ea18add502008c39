package control

import (
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

func TestParseFleet(t *testing.T) {
	for _, tc := range []struct {
		data     map[string]string
		stop     *FleetStop
		problems int
	}{
		{nil, nil, 0},
		{map[string]string{contract.ByKey: "sre"}, nil, 0},
		{map[string]string{contract.StopAllKey: " incident ", contract.ByKey: "sre"}, &FleetStop{Reason: "incident", By: "sre"}, 0},
		{map[string]string{contract.StopAllKey: ""}, &FleetStop{Reason: "no reason given"}, 0},
		{map[string]string{"stopall": "x"}, nil, 1},
	} {
		stop, problems := ParseFleet(tc.data)
		if (stop == nil) != (tc.stop == nil) || (stop != nil && *stop != *tc.stop) || len(problems) != tc.problems {
			t.Errorf("%v: stop %+v problems %v", tc.data, stop, problems)
		}
	}
}
