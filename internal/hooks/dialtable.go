package hooks

import (
	"fmt"
	"net/netip"
)

// addrClass is what the guard does with a range.
type addrClass int

const (
	refusedRange addrClass = iota // refused always
	privateRange                  // refused unless --hook-allow-private
	translated                    // an IPv6 form embedding an IPv4 address: judged by that address
)

// special is one row of IANA's IPv4 or IPv6 Special-Purpose Address Registry (or of the
// address-space and multicast registries, where said), named as the registry names it.
type special struct {
	prefix netip.Prefix
	name   string    // the registry's row name
	what   string    // what the error says the address is
	class  addrClass // what the guard does
}

func row(prefix, name, what string, class addrClass) special {
	return special{prefix: netip.MustParsePrefix(prefix), name: name, what: what, class: class}
}

const (
	isSpecial  = "a special-purpose address"
	isLocal    = "loopback or private"
	isLink     = "link-local"
	notUnicast = "not a unicast address"
)

// specialV4 is IANA's IPv4 Special-Purpose Address Registry
// (https://www.iana.org/assignments/iana-ipv4-special-registry), every row, plus multicast.
// Only loopback, Private-Use and Shared Address Space are reachable, and only with
// --hook-allow-private; every other row is refused, the globally reachable anycast ones
// included (no hook has business with a PCP, TURN, AS112 or AMT anycast address).
var specialV4 = []special{
	row("0.0.0.0/8", `"This network"`, notUnicast, refusedRange),
	row("0.0.0.0/32", `"This host on this network"`, notUnicast, refusedRange),
	row("10.0.0.0/8", "Private-Use", isLocal, privateRange),
	row("100.64.0.0/10", "Shared Address Space", isLocal, privateRange),
	row("127.0.0.0/8", "Loopback", isLocal, privateRange),
	row("169.254.0.0/16", "Link Local", isLink, refusedRange),
	row("172.16.0.0/12", "Private-Use", isLocal, privateRange),
	row("192.0.0.0/24", "IETF Protocol Assignments", isSpecial, refusedRange),
	row("192.0.0.0/29", "IPv4 Service Continuity Prefix", isSpecial, refusedRange),
	row("192.0.0.8/32", "IPv4 dummy address", isSpecial, refusedRange),
	row("192.0.0.9/32", "Port Control Protocol Anycast", isSpecial, refusedRange),
	row("192.0.0.10/32", "Traversal Using Relays around NAT Anycast", isSpecial, refusedRange),
	row("192.0.0.170/32", "NAT64/DNS64 Discovery", isSpecial, refusedRange),
	row("192.0.0.171/32", "NAT64/DNS64 Discovery", isSpecial, refusedRange),
	row("192.0.2.0/24", "Documentation (TEST-NET-1)", isSpecial, refusedRange),
	row("192.31.196.0/24", "AS112-v4", isSpecial, refusedRange),
	row("192.52.193.0/24", "AMT", isSpecial, refusedRange),
	row("192.88.99.0/24", "Deprecated (6to4 Relay Anycast)", isSpecial, refusedRange),
	row("192.88.99.2/32", "6a44-relay anycast address", isSpecial, refusedRange),
	row("192.168.0.0/16", "Private-Use", isLocal, privateRange),
	row("192.175.48.0/24", "Direct Delegation AS112 Service", isSpecial, refusedRange),
	row("198.18.0.0/15", "Benchmarking", isSpecial, refusedRange),
	row("198.51.100.0/24", "Documentation (TEST-NET-2)", isSpecial, refusedRange),
	row("203.0.113.0/24", "Documentation (TEST-NET-3)", isSpecial, refusedRange),
	row("240.0.0.0/4", "Reserved", isSpecial, refusedRange),
	row("255.255.255.255/32", "Limited Broadcast", notUnicast, refusedRange),
	// IANA IPv4 Multicast Address Space Registry.
	row("224.0.0.0/4", "Multicast", notUnicast, refusedRange),
}

// specialV6 is IANA's IPv6 Special-Purpose Address Registry
// (https://www.iana.org/assignments/iana-ipv6-special-registry), every row, plus the
// deprecated forms of the IPv6 Address Space registry and multicast. An address outside
// them must still be global unicast (2000::/3).
var specialV6 = []special{
	row("::1/128", "Loopback Address", isLocal, privateRange),
	row("::/128", "Unspecified Address", notUnicast, refusedRange),
	row("::ffff:0:0/96", "IPv4-mapped Address", "", translated),
	row("64:ff9b::/96", "IPv4-IPv6 Translat.", "", translated),
	row("64:ff9b:1::/48", "IPv4-IPv6 Translat.", "", translated),
	row("100::/64", "Discard-Only Address Block", isSpecial, refusedRange),
	row("100:0:0:1::/64", "Dummy IPv6 Prefix", isSpecial, refusedRange),
	row("2001::/23", "IETF Protocol Assignments", isSpecial, refusedRange),
	row("2001::/32", "TEREDO", "", translated),
	row("2001:1::1/128", "Port Control Protocol Anycast", isSpecial, refusedRange),
	row("2001:1::2/128", "Traversal Using Relays around NAT Anycast", isSpecial, refusedRange),
	row("2001:1::3/128", "DNS-SD Service Registration Protocol Anycast", isSpecial, refusedRange),
	row("2001:2::/48", "Benchmarking", isSpecial, refusedRange),
	row("2001:3::/32", "AMT", isSpecial, refusedRange),
	row("2001:4:112::/48", "AS112-v6", isSpecial, refusedRange),
	row("2001:10::/28", "Deprecated (previously ORCHID)", isSpecial, refusedRange),
	row("2001:20::/28", "ORCHIDv2", isSpecial, refusedRange),
	row("2001:30::/28", "Drone Remote ID Protocol Entity Tags (DETs) Prefix", isSpecial, refusedRange),
	row("2001:db8::/32", "Documentation", isSpecial, refusedRange),
	row("2002::/16", "6to4", "", translated),
	row("2620:4f:8000::/48", "Direct Delegation AS112 Service", isSpecial, refusedRange),
	row("3fff::/20", "Documentation", isSpecial, refusedRange),
	row("5f00::/16", "Segment Routing (SRv6) SIDs", isSpecial, refusedRange),
	row("fc00::/7", "Unique-Local", isLocal, privateRange),
	row("fe80::/10", "Link-Local Unicast", isLink, refusedRange),
	// IPv6 Address Space registry: deprecated forms.
	row("::/96", "IPv4-compatible IPv6 address (deprecated, RFC 4291)", isSpecial, refusedRange),
	row("fec0::/10", "Site-Local (deprecated, RFC 3879)", isSpecial, refusedRange),
	// IANA IPv6 Multicast Address Space Registry.
	row("ff00::/8", "Multicast", notUnicast, refusedRange),
}

var (
	globalUnicast = netip.MustParsePrefix("2000::/3")
	v4Compatible  = netip.MustParsePrefix("::/96")
	siit          = netip.MustParsePrefix("::ffff:0:0:0/96")
	nat64         = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local    = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour     = netip.MustParsePrefix("2002::/16")
	teredo        = netip.MustParsePrefix("2001::/32")
)

// lookupSpecial is the most specific row of table holding ip, or nil.
func lookupSpecial(table []special, ip netip.Addr) *special {
	var best *special
	for i := range table {
		r := &table[i]
		if r.prefix.Contains(ip) && (best == nil || r.prefix.Bits() > best.prefix.Bits()) {
			best = r
		}
	}
	return best
}

// embeddedV4 are the IPv4 addresses an IPv6 address carries in a translation or tunnel
// form, each with the form's name: whoever forwards it reaches that IPv4 address.
func embeddedV4(ip netip.Addr) []struct {
	form string
	v4   netip.Addr
} {
	b := ip.As16()
	var out []struct {
		form string
		v4   netip.Addr
	}
	add := func(form string, a, c, d, e byte) {
		out = append(out, struct {
			form string
			v4   netip.Addr
		}{form, netip.AddrFrom4([4]byte{a, c, d, e})})
	}
	switch {
	case v4Compatible.Contains(ip): // IPv4-compatible (RFC 4291, deprecated)
		add("IPv4-compatible", b[12], b[13], b[14], b[15])
	case siit.Contains(ip): // SIIT IPv4-translated (RFC 2765)
		add("SIIT IPv4-translated", b[12], b[13], b[14], b[15])
	case nat64.Contains(ip): // NAT64 well-known prefix (RFC 6052)
		add("NAT64", b[12], b[13], b[14], b[15])
	case nat64Local.Contains(ip):
		// Local-use NAT64 (RFC 8215): the network picks the prefix length, so every
		// RFC 6052 layout a /48 or longer prefix allows whose u-octet (bits 64–71) and
		// suffix are zero is read, and all must pass.
		zero := func(bs ...byte) bool { return string(bs) == string(make([]byte, len(bs))) }
		shorter := false
		if zero(b[8], b[11], b[12], b[13], b[14], b[15]) {
			add("local-use NAT64 /48", b[6], b[7], b[9], b[10])
			shorter = true
		}
		if zero(b[8], b[12], b[13], b[14], b[15]) {
			add("local-use NAT64 /56", b[7], b[9], b[10], b[11])
			shorter = true
		}
		if zero(b[8], b[13], b[14], b[15]) {
			add("local-use NAT64 /64", b[9], b[10], b[11], b[12])
			shorter = true
		}
		// The /96 reading of a shorter layout is x.0.0.0, the zero suffix: not a host.
		if !shorter {
			add("local-use NAT64 /96", b[12], b[13], b[14], b[15])
		}
	case sixToFour.Contains(ip): // 6to4 (RFC 3056): the IPv4 address in bits 16–48
		add("6to4", b[2], b[3], b[4], b[5])
	case teredo.Contains(ip): // Teredo (RFC 4380): server in bits 32–64, client inverted in 96–128
		add("Teredo server", b[4], b[5], b[6], b[7])
		add("Teredo client", ^b[12], ^b[13], ^b[14], ^b[15])
	}
	// ISATAP (RFC 5214): an interface identifier [00|02]00:5efe:<IPv4> under any prefix.
	if b[8]&^0x03 == 0 && b[9] == 0 && b[10] == 0x5e && b[11] == 0xfe {
		add("ISATAP", b[12], b[13], b[14], b[15])
	}
	return out
}

const (
	fixPrivate = "(fix: start the agent with --hook-allow-private, or point the hook at a public address)"
	fixNever   = "(fix: point the hook at a public address; this range is refused even with --hook-allow-private)"
)

// checkV4 says why the guard refuses an IPv4 address (via says through which IPv6 form it
// is reached, if any), or nil.
func (g *guard) checkV4(ip netip.Addr, via string) error {
	if isMetadata(ip) {
		return fmt.Errorf("%w: %s%s is a cloud metadata address %s", ErrRefused, via, ip, fixNever)
	}
	r := lookupSpecial(specialV4, ip)
	switch {
	case r == nil || (r.class == privateRange && g.allowPrivate):
		return nil
	case r.class == privateRange:
		return fmt.Errorf("%w: %s%s is %s (IANA: %s) %s", ErrRefused, via, ip, r.what, r.name, fixPrivate)
	default:
		return fmt.Errorf("%w: %s%s is %s (IANA: %s) %s", ErrRefused, via, ip, r.what, r.name, fixNever)
	}
}

// checkV6 says why the guard refuses an IPv6 address, or nil: metadata, then every IPv4
// address it embeds, then its own row, then global unicast.
func (g *guard) checkV6(ip netip.Addr) error {
	if isMetadata(ip) {
		return fmt.Errorf("%w: %s is a cloud metadata address %s", ErrRefused, ip, fixNever)
	}
	r := lookupSpecial(specialV6, ip)
	if r == nil || r.prefix.Bits() < 128 { // not ::1 or :: themselves
		for _, e := range embeddedV4(ip) {
			if err := g.checkV4(e.v4, fmt.Sprintf("%s embeds (%s) ", ip, e.form)); err != nil {
				return err
			}
		}
	}
	switch {
	case r == nil && !globalUnicast.Contains(ip):
		return fmt.Errorf("%w: %s is not a global unicast address (outside 2000::/3) %s", ErrRefused, ip, fixNever)
	case r == nil || r.class == translated || (r.class == privateRange && g.allowPrivate):
		return nil
	case r.class == privateRange:
		return fmt.Errorf("%w: %s is %s (IANA: %s) %s", ErrRefused, ip, r.what, r.name, fixPrivate)
	default:
		return fmt.Errorf("%w: %s is %s (IANA: %s) %s", ErrRefused, ip, r.what, r.name, fixNever)
	}
}
