package hooks

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// UserAgent is sent by every HTTP hook (seed 000).
const UserAgent = contract.HookUserAgentValue

// InjectedHeaders are seed 000's headers plus the idempotency key.
func InjectedHeaders(c Call) map[string]string {
	h := map[string]string{
		contract.HeaderUserAgent: UserAgent, contract.HeaderAppSetName: c.Rollout, contract.HeaderAppSetNamespace: c.Namespace,
		contract.HeaderHookName: c.Hook.Name, contract.HeaderHookType: c.Place, contract.HeaderHookKind: c.Hook.Type,
		contract.HeaderAppSetPhase: c.Phase,
	}
	if c.IdempotencyKey != "" {
		h[contract.HeaderIdempotency] = c.IdempotencyKey
	}
	if c.Cluster != "" {
		h[contract.HeaderAppSetCluster] = c.Cluster
	}
	return h
}

// DescribeErr says why a call could not be made, naming a timeout as one. A *url.Error is
// told by its host only: its URL may carry a query-escaped secret the redactor would miss.
func DescribeErr(ctx context.Context, err error) string {
	msg := withoutURL(err)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "timed out: " + msg
	}
	return msg
}

// withoutURL is err's text without the request URL a *url.Error adds, naming the host.
func withoutURL(err error) string {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err.Error()
	}
	if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
		return fmt.Sprintf("%s %s: %v", ue.Op, u.Host, ue.Err)
	}
	return fmt.Sprintf("%s: %v", ue.Op, ue.Err)
}
