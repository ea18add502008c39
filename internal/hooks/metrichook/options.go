package metrichook

import (
	"flag"
	"fmt"
	"net/url"
)

// Options are what the agent tells metric checks: the Prometheus to ask when a check
// names none. The agent hands them to its runner (hooks.Limits.Kinds).
type Options struct {
	// PrometheusAddress is the Prometheus a metric check without an address asks
	// (--prometheus-address); empty: such a check is Errored.
	PrometheusAddress string
}

// BindFlags registers --prometheus-address.
func (o *Options) BindFlags(fs *flag.FlagSet) {
	fs.Func("prometheus-address", "the Prometheus metric checks without metric.prometheus.address ask (http:// or https:// URL)", func(v string) error {
		if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%q is not an absolute http:// or https:// URL", v)
		}
		o.PrometheusAddress = v
		return nil
	})
}
