package control

import (
	"time"

	"sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// MaxFleetWindowsBytes bounds the fleet's windows key: YAML takes hundreds of bytes per
// node to decode (64 KiB of `{},` allocate 36 MiB), and a list of windows is short.
const MaxFleetWindowsBytes = 64 << 10

// ParseFleetWindows reads the fleet ConfigMap's windows key: change windows over every
// rollout, a YAML list in the spec's shape (compiled). A list that cannot be read fails
// closed: it comes back as one deny window that never ends, named InvalidFleetWindows, with
// the problem to report.
func ParseFleetWindows(data map[string]string) ([]spec.Window, *Problem) {
	v, ok := data[contract.WindowsKey]
	if !ok {
		return nil, nil
	}
	if len(v) > MaxFleetWindowsBytes {
		p := new(Problemf(contract.WindowsKey, v, "%s of %s is %d bytes, over the limit of %d (fix: fewer windows; until then every rollout is held)", contract.WindowsKey, contract.FleetConfigMap, len(v), MaxFleetWindowsBytes))
		return []spec.Window{ClosedWindow(InvalidFleetWindows)}, p
	}
	var ws []spec.Window
	err := yaml.UnmarshalStrict([]byte(v), &ws)
	if err == nil {
		err = spec.CompileWindows(ws)
	}
	if err == nil {
		return ws, nil
	}
	p := new(Problemf(contract.WindowsKey, v, "%s of %s: %v (fix: correct the list; until then every rollout is held)", contract.WindowsKey, contract.FleetConfigMap, err))
	return []spec.Window{ClosedWindow(InvalidFleetWindows)}, p
}

// InvalidFleetWindows names the window that holds every rollout while the fleet's windows
// key cannot be read.
const InvalidFleetWindows = "invalid-fleet-windows"

// ClosedWindow is a deny window that never ends (failing closed).
func ClosedWindow(name string) spec.Window {
	w := spec.Window{Name: name, Kind: spec.WindowDeny, Start: time.Unix(0, 0).UTC().Format(time.RFC3339), End: "9999-12-31T23:59:59Z"}
	_ = w.Compile() // constant fields: it compiles
	return w
}
