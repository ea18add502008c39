package all

import (
	"flag"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/hooks/commandhook"
	"github.com/cmp-phase/cmp-phase/internal/hooks/httphook"
	"github.com/cmp-phase/cmp-phase/internal/hooks/jobhook"
	"github.com/cmp-phase/cmp-phase/internal/hooks/metrichook"
)

// kinds are every kind a spec may use, in the order its errors list them.
var kinds = []hooks.Kind{
	httphook.Kind,
	commandhook.Kind,
	jobhook.Kind,
	metrichook.Kind,
}

func init() {
	for _, k := range kinds {
		hooks.Register(k)
	}
}

// BindFlags registers every kind's own options on fs (--hook-command-dir,
// --hook-pass-env, --job-service-account, --job-namespace, --prometheus-address) and returns them, to be
// handed to the runner as hooks.Limits.Kinds once fs is parsed.
func BindFlags(fs *flag.FlagSet) []any {
	command, job, metric := &commandhook.Options{}, &jobhook.Options{}, &metrichook.Options{}
	command.BindFlags(fs)
	job.BindFlags(fs)
	metric.BindFlags(fs)
	return []any{command, job, metric}
}
