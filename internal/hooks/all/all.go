package all

import (
	"flag"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/hooks/metrichook"
)

// kinds are registered after the kinds still defined in internal/spec (http, command,
// job), in the order a spec's errors list them.
var kinds = []hooks.Kind{
	metrichook.Kind,
}

func init() {
	for _, k := range kinds {
		hooks.Register(k)
	}
}

// BindFlags registers every kind's own options on fs (--prometheus-address) and returns
// them, to be handed to the runner as hooks.Limits.Kinds once fs is parsed.
func BindFlags(fs *flag.FlagSet) []any {
	metric := &metrichook.Options{}
	metric.BindFlags(fs)
	return []any{metric}
}
