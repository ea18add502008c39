package hooks

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// TestSpecialPurposeAddresses: every IANA special-purpose range, and the metadata address
// in every IPv6 form that reaches it, is refused; with --hook-allow-private only loopback,
// Private-Use, Shared Address Space and Unique-Local open, metadata never.
func TestSpecialPurposeAddresses(t *testing.T) {
	const always, private, allowed = "always", "private", "allowed"
	cases := []struct {
		addr, verdict, want string
	}{
		// 169.254.169.254 in every IPv6 form.
		{"::a9fe:a9fe", always, "169.254.169.254 is a cloud metadata address"},              // IPv4-compatible
		{"::ffff:a9fe:a9fe", always, "169.254.169.254 is a cloud metadata address"},         // IPv4-mapped
		{"::ffff:0:a9fe:a9fe", always, "169.254.169.254 is a cloud metadata address"},       // SIIT
		{"64:ff9b::a9fe:a9fe", always, "(NAT64) 169.254.169.254 is a cloud metadata"},       // NAT64
		{"64:ff9b::169.254.169.254", always, "(NAT64) 169.254.169.254"},                     // NAT64, dotted
		{"64:ff9b:1::a9fe:a9fe", always, "(local-use NAT64 /96) 169.254.169.254"},           // local-use /96
		{"64:ff9b:1:a9fe:a9:fe00::", always, "(local-use NAT64 /48) 169.254.169.254"},       // local-use /48
		{"2002:a9fe:a9fe::1", always, "(6to4) 169.254.169.254"},                             // 6to4
		{"2001:0:4136:e378:8000:63bf:5601:5601", always, "(Teredo client) 169.254.169.254"}, // Teredo
		{"2001:0:a9fe:a9fe::1", always, "(Teredo server) 169.254.169.254"},
		{"2600::5efe:a9fe:a9fe", always, "(ISATAP) 169.254.169.254"},
		{"2600::200:5efe:a9fe:a9fe", always, "(ISATAP) 169.254.169.254"},
		{"fe80::1%eth0", always, "link-local"},
		// Metadata outside link-local.
		{"168.63.129.16", always, "168.63.129.16 is a cloud metadata address"},
		{"64:ff9b::a83f:8110", always, "168.63.129.16 is a cloud metadata address"},
		{"100.100.100.200", always, "cloud metadata"},
		{"fd00:ec2::254", always, "cloud metadata"},
		{"fd00:ec2::23", always, "cloud metadata"},
		{"fd20:ce::254", always, "cloud metadata"}, // GCP IPv6 (issue 47: passed with --hook-allow-private)
		// IPv4 special-purpose rows.
		{"0.0.0.0", always, "not a unicast address"},
		{"0.1.2.3", always, `"This network"`},
		{"169.254.1.1", always, "link-local"},
		{"192.0.0.1", always, "IPv4 Service Continuity Prefix"},
		{"192.0.0.100", always, "IETF Protocol Assignments"},
		{"192.0.0.170", always, "NAT64/DNS64 Discovery"},
		{"192.0.2.1", always, "TEST-NET-1"},
		{"192.31.196.1", always, "AS112-v4"},
		{"192.52.193.1", always, "AMT"},
		{"192.88.99.1", always, "6to4 Relay Anycast"},
		{"192.175.48.1", always, "AS112 Service"},
		{"198.18.0.1", always, "Benchmarking"},
		{"198.19.255.254", always, "Benchmarking"},
		{"198.51.100.7", always, "TEST-NET-2"},
		{"203.0.113.9", always, "TEST-NET-3"},
		{"240.0.0.1", always, "Reserved"},
		{"255.255.255.255", always, "Limited Broadcast"},
		{"224.0.0.1", always, "not a unicast address"},
		// IPv6 special-purpose rows.
		{"::", always, "not a unicast address"},
		{"100::1", always, "Discard-Only"},
		{"2001:db8::1", always, "Documentation"},
		{"3fff::1", always, "Documentation"},
		{"2001:2::1", always, "Benchmarking"},
		{"2001:1::1", always, "Port Control Protocol"},
		{"2001:20::1", always, "ORCHIDv2"},
		{"2620:4f:8000::1", always, "AS112"},
		{"5f00::1", always, "SRv6"},
		{"fe80::1", always, "link-local"},
		{"fec0::1", always, "Site-Local"},
		{"ff02::1", always, "not a unicast address"},
		{"::1.2.3.4", always, "IPv4-compatible"},
		{"4000::1", always, "outside 2000::/3"},
		// Translation forms of other refused IPv4 ranges.
		{"64:ff9b::c000:201", always, "TEST-NET-1"},
		{"2002:c612:1::1", always, "Benchmarking"},
		{"64:ff9b::f000:1", always, "Reserved"},
		// Reachable with --hook-allow-private only.
		{"127.0.0.1", private, "loopback or private"},
		{"::1", private, "loopback or private"},
		{"10.1.2.3", private, "Private-Use"},
		{"172.16.0.1", private, "Private-Use"},
		{"192.168.1.1", private, "Private-Use"},
		{"100.64.0.1", private, "Shared Address Space"},
		{"fd12:3456::1", private, "Unique-Local"},
		{"::ffff:10.0.0.1", private, "Private-Use"},
		{"64:ff9b::a00:1", private, "(NAT64) 10.0.0.1 is loopback or private"},
		{"2002:a00:1::1", private, "(6to4) 10.0.0.1"},
		// Public.
		{"93.184.216.34", allowed, ""},
		{"2606:2800:220:1:248:1893:25c8:1946", allowed, ""},
		{"64:ff9b::5db8:d822", allowed, ""}, // NAT64 of a public address (an IPv6-only cluster)
		{"2002:5db8:d822::1", allowed, ""},
		{"64:ff9b:1::5db8:d822", allowed, ""},                 // local-use NAT64 /96 of a public address
		{"64:ff9b:1:5db8:d8:2200::", allowed, ""},             // local-use NAT64 /48 of a public address
		{"2001:0:4136:e378:8000:63bf:a247:27dd", allowed, ""}, // Teredo, public server and client
	}
	for _, c := range cases {
		for _, allowPrivate := range []bool{false, true} {
			g := &guard{allowPrivate: allowPrivate}
			err := g.check(netip.MustParseAddr(c.addr))
			refused := c.verdict == always || (c.verdict == private && !allowPrivate)
			switch {
			case refused && err == nil:
				t.Errorf("%s (allow private %v): allowed, want refused with %q", c.addr, allowPrivate, c.want)
			case refused && (!errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "(fix: ")):
				t.Errorf("%s (allow private %v): %v, want %q and a fix", c.addr, allowPrivate, err, c.want)
			case !refused && err != nil:
				t.Errorf("%s (allow private %v): refused: %v", c.addr, allowPrivate, err)
			}
		}
	}
}
