package hooks

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrRefused marks a destination the policy refuses.
var ErrRefused = errors.New("address refused")

// metadata are cloud metadata and credential endpoints, refused even when private ranges
// are allowed (most are also in a refused range; these are not, or not always).
var metadata = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack, Oracle
	netip.MustParseAddr("169.254.170.2"),   // AWS ECS task metadata
	netip.MustParseAddr("169.254.170.23"),  // AWS EKS Pod Identity agent
	netip.MustParseAddr("fd00:ec2::254"),   // AWS IPv6
	netip.MustParseAddr("fd00:ec2::23"),    // AWS EKS Pod Identity agent, IPv6
	netip.MustParseAddr("fd20:ce::254"),    // GCP IPv6 (inside fc00::/7, which --hook-allow-private opens)
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("168.63.129.16"),   // Azure wireserver (a public address)
}

func isMetadata(ip netip.Addr) bool { return slices.Contains(metadata, ip) }

// guard resolves a hook's host, checks every address, and dials the checked address itself,
// so a second DNS answer (rebinding) never reaches the connection.
type guard struct {
	allowPrivate bool
	lookup       func(ctx context.Context, host string) ([]netip.Addr, error)
}

func lookupNetIP(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// check says why an address is refused, or nil: the IANA special-purpose tables
// (dialtable.go), the IPv4 address inside every IPv6 translation form included.
func (g *guard) check(ip netip.Addr) error {
	ip = ip.Unmap().WithZone("") // a zone would make every prefix miss
	if ip.Is4() {
		return g.checkV4(ip, "")
	}
	return g.checkV6(ip)
}

// dial resolves addr's host; if any address is refused the dial is (a name that resolves
// to both a public and a refused address is not trusted), else it dials them in turn.
func (g *guard) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("port %q: %w", portStr, err)
	}
	if err := numericHost(host); err != nil {
		return nil, err
	}
	ips, err := g.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("%s resolves to no address", host)
	}
	for _, ip := range ips {
		if err := g.check(ip); err != nil {
			return nil, err
		}
	}
	d := net.Dialer{Timeout: 10 * time.Second}
	var last error
	for _, ip := range ips {
		conn, err := d.DialContext(ctx, network, netip.AddrPortFrom(ip.Unmap(), uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		last = err
	}
	return nil, last
}

// numericHost refuses a host that looks like a number but is no canonical IP address
// (2852039166, 0251.0376.0251.0376, 0x7f.1): other resolvers and libraries read such forms
// as addresses, so one may name the metadata service behind a harmless-looking URL.
func numericHost(host string) error {
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h != "" && h[0] >= '0' && h[0] <= '9' && strings.Trim(h, "0123456789abcdefx.") == "" {
		return fmt.Errorf("%w: %q is a numeric host that is not a plain IP address", ErrRefused, host)
	}
	return nil
}

// client is the HTTP client of hooks: no proxy (it would bypass the guard), guarded dials,
// bounded response headers, re-checked redirects.
func (g *guard) client(l Limits, insecure bool) *http.Client {
	t := &http.Transport{
		DialContext:            g.dial,
		TLSClientConfig:        &tls.Config{RootCAs: l.RootCAs, InsecureSkipVerify: insecure, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    10 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
		ForceAttemptHTTP2:      true,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        30 * time.Second,
	}
	return &http.Client{Transport: t, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		switch {
		case len(via) > l.MaxRedirects:
			return fmt.Errorf("more than %d redirects", l.MaxRedirects)
		case req.URL.Scheme != "http" && req.URL.Scheme != "https":
			return fmt.Errorf("redirect to a %q URL", req.URL.Scheme)
		case via[len(via)-1].URL.Scheme == "https" && req.URL.Scheme == "http":
			return fmt.Errorf("redirect from https to http")
		}
		if req.URL.Host != via[0].URL.Host {
			keepSafeHeaders(req.Header) // the spec's headers (a secret among them) go to its host only
		}
		return nil // the destination's address is checked when it is dialled
	}}
}

// safeHeaders are the request headers a redirect to another host keeps: none the spec
// wrote (Go drops only Authorization and Cookie of its own accord; an X-Api-Key would go on).
var safeHeaders = []string{"Accept", "Accept-Encoding", "Accept-Language", "Content-Type", "Content-Length", "User-Agent", "Idempotency-Key"}

// keepSafeHeaders deletes every header of h but safeHeaders.
func keepSafeHeaders(h http.Header) {
	for k := range h {
		if !slices.Contains(safeHeaders, http.CanonicalHeaderKey(k)) {
			delete(h, k)
		}
	}
}
