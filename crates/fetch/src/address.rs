//! Which IP addresses are globally routable: everything else (loopback, private, link-local,
//! shared, multicast, documentation, ...) is refused unless the operator allows it.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why `ip` is not a globally routable address, or `None` when it is.
///
/// IPv4-mapped IPv6 addresses (`::ffff:a.b.c.d`) are judged as the IPv4 address they carry;
/// NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`) addresses by the IPv4 address they embed.
pub fn refusal(ip: IpAddr) -> Option<String> {
    match ip.to_canonical() {
        IpAddr::V4(v4) => v4_refusal(v4).map(str::to_owned),
        IpAddr::V6(v6) => v6_refusal(v6),
    }
}

/// Whether `ip` lies in `base/prefix` (both IPv4).
fn in_v4(ip: Ipv4Addr, base: [u8; 4], prefix: u32) -> bool {
    let mask = u32::MAX.checked_shl(32 - prefix).unwrap_or(0);
    u32::from(ip) & mask == u32::from(Ipv4Addr::from(base)) & mask
}

/// Whether `ip` lies in `base/prefix` (both IPv6).
fn in_v6(ip: Ipv6Addr, base: u128, prefix: u32) -> bool {
    let mask = u128::MAX.checked_shl(128 - prefix).unwrap_or(0);
    u128::from(ip) & mask == base & mask
}

fn v4_refusal(ip: Ipv4Addr) -> Option<&'static str> {
    const RANGES: &[([u8; 4], u32, &str)] = &[
        (
            [0, 0, 0, 0],
            8,
            "an unspecified (\"this network\") address, 0.0.0.0/8",
        ),
        ([10, 0, 0, 0], 8, "a private address (RFC 1918)"),
        (
            [100, 64, 0, 0],
            10,
            "a shared (carrier-grade NAT) address, 100.64.0.0/10",
        ),
        ([127, 0, 0, 0], 8, "a loopback address"),
        (
            [169, 254, 0, 0],
            16,
            "a link-local address (where cloud metadata services answer)",
        ),
        ([172, 16, 0, 0], 12, "a private address (RFC 1918)"),
        (
            [192, 0, 0, 0],
            24,
            "an IETF protocol assignment, 192.0.0.0/24",
        ),
        ([192, 0, 2, 0], 24, "a documentation address"),
        ([192, 88, 99, 0], 24, "a 6to4 relay anycast address"),
        ([192, 168, 0, 0], 16, "a private address (RFC 1918)"),
        ([198, 18, 0, 0], 15, "a benchmarking address, 198.18.0.0/15"),
        ([198, 51, 100, 0], 24, "a documentation address"),
        ([203, 0, 113, 0], 24, "a documentation address"),
        ([224, 0, 0, 0], 4, "a multicast address"),
        ([255, 255, 255, 255], 32, "the broadcast address"),
        ([240, 0, 0, 0], 4, "a reserved address, 240.0.0.0/4"),
    ];
    RANGES
        .iter()
        .find(|(base, prefix, _)| in_v4(ip, *base, *prefix))
        .map(|(_, _, why)| *why)
}

fn v6_refusal(ip: Ipv6Addr) -> Option<String> {
    let bits = u128::from(ip);
    // Forms that carry an IPv4 address: judged by it.
    if in_v6(ip, 0x0064_ff9b << 96, 96) {
        let embedded = Ipv4Addr::from(bits as u32);
        return v4_refusal(embedded).map(|why| format!("a NAT64 form of {embedded}, {why}"));
    }
    if in_v6(ip, 0x2002 << 112, 16) {
        let embedded = Ipv4Addr::from((bits >> 80) as u32);
        return v4_refusal(embedded).map(|why| format!("a 6to4 form of {embedded}, {why}"));
    }
    const RANGES: &[(u128, u32, &str)] = &[
        (0, 128, "the unspecified address"),
        (1, 128, "a loopback address"),
        (0, 96, "an IPv4-compatible IPv6 address (deprecated), ::/96"),
        (
            0x0064_ff9b_0001 << 80,
            48,
            "a local-use NAT64 address, 64:ff9b:1::/48",
        ),
        (0x0100 << 112, 64, "a discard-only address, 100::/64"),
        (0x2001_0db8 << 96, 32, "a documentation address"),
        (
            0x2001 << 112,
            23,
            "an IETF protocol assignment (Teredo, benchmarking, ORCHID), 2001::/23",
        ),
        (0x3fff << 112, 20, "a documentation address"),
        (0xfc00 << 112, 7, "a unique-local (private) address"),
        (0xfe80 << 112, 10, "a link-local address"),
        (0xfec0 << 112, 10, "a site-local address (deprecated)"),
        (0xff00 << 112, 8, "a multicast address"),
    ];
    if let Some((_, _, why)) = RANGES
        .iter()
        .find(|(base, prefix, _)| in_v6(ip, *base, *prefix))
    {
        return Some((*why).to_owned());
    }
    (!in_v6(ip, 0x2000 << 112, 3)).then(|| "outside the global unicast range 2000::/3".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> bool {
        refusal(text.parse().unwrap()).is_some()
    }

    #[test]
    fn addresses_that_are_not_globally_routable_are_refused() {
        for ip in [
            "0.0.0.0",
            "0.1.2.3",
            "10.1.2.3",
            "100.64.0.1",
            "100.127.255.255",
            "127.0.0.1",
            "127.255.0.9",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.88.99.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::127.0.0.1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::ffff:10.0.0.1",
            "64:ff9b::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b:1::1",
            "100::1",
            "2001::1",
            "2001:db8::1",
            "2002:7f00:1::",
            "2002:c0a8:101::1",
            "3fff::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "fec0::1",
            "ff02::1",
            "5f00::1",
        ] {
            assert!(refused(ip), "{ip} must be refused");
        }
    }

    #[test]
    fn globally_routable_addresses_pass() {
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.216.34",
            "100.63.255.255",
            "100.128.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.0.1.1",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.255",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
            "2606:4700::1111",
            "2a00:1450:4001::1",
        ] {
            assert!(
                !refused(ip),
                "{ip} must pass: {:?}",
                refusal(ip.parse().unwrap())
            );
        }
    }

    #[test]
    fn the_reason_names_the_kind_of_address() {
        let why = refusal("169.254.169.254".parse().unwrap()).unwrap();
        assert!(why.contains("link-local"), "{why}");
        let why = refusal("::ffff:127.0.0.1".parse().unwrap()).unwrap();
        assert!(why.contains("loopback"), "{why}");
        let why = refusal("64:ff9b::10.0.0.1".parse().unwrap()).unwrap();
        assert!(
            why.contains("NAT64 form of 10.0.0.1") && why.contains("private"),
            "{why}"
        );
    }
}
