//! A URL's host read the way browsers read it (the WHATWG URL standard's host parser), so that
//! every numeric spelling of an address (`2130706433`, `0x7f000001`, `0177.0.0.1`, `127.1`) is
//! recognised as the address it means, not handed to a resolver that might read it another way.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A parsed host: an IP address or a (lower-case, trailing-dot-free) domain name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Host {
    /// An IP address, however it was spelled.
    Ip(IpAddr),
    /// A domain name to resolve.
    Name(String),
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Host::Ip(ip) => write!(f, "{ip}"),
            Host::Name(name) => f.write_str(name),
        }
    }
}

impl Host {
    /// Parses a URL's host (`[v6]` in brackets, a dotted or numeric IPv4, or a name).
    pub fn parse(host: &str) -> Result<Host, String> {
        if let Some(inner) = host.strip_prefix('[') {
            let inner = inner
                .strip_suffix(']')
                .ok_or_else(|| format!("{host:?} is not a valid IPv6 host"))?;
            return inner
                .parse::<Ipv6Addr>()
                .map(|ip| Host::Ip(IpAddr::V6(ip)))
                .map_err(|_| format!("{host:?} is not a valid IPv6 address"));
        }
        if host.contains(':') {
            return host
                .parse::<Ipv6Addr>()
                .map(|ip| Host::Ip(IpAddr::V6(ip)))
                .map_err(|_| format!("{host:?} is not a valid IPv6 address"));
        }
        if host.is_empty() {
            return Err("the host is empty".into());
        }
        if !host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'_')
        {
            return Err(format!(
                "host {host:?} has characters other than letters, digits, '-', '_' and '.'"
            ));
        }
        let lower = host.to_ascii_lowercase();
        if ends_in_a_number(&lower) {
            return parse_ipv4(&lower)
                .map(|ip| Host::Ip(IpAddr::V4(ip)))
                .ok_or_else(|| format!("host {host:?} is not a valid IPv4 address"));
        }
        let name = lower.strip_suffix('.').unwrap_or(&lower);
        if name.is_empty() || name.split('.').any(str::is_empty) {
            return Err(format!("host {host:?} has an empty label"));
        }
        Ok(Host::Name(name.to_owned()))
    }
}

/// The WHATWG "ends in a number" test: the last label (after one trailing dot) is a number.
fn ends_in_a_number(host: &str) -> bool {
    let mut labels: Vec<&str> = host.split('.').collect();
    if labels.last() == Some(&"") && labels.len() > 1 {
        labels.pop();
    }
    let last = labels.last().copied().unwrap_or("");
    !last.is_empty() && (last.bytes().all(|b| b.is_ascii_digit()) || ipv4_number(last).is_some())
}

/// One part of a WHATWG IPv4 address: decimal, `0x` hexadecimal or `0`-prefixed octal.
fn ipv4_number(part: &str) -> Option<u64> {
    let (digits, radix) =
        if let Some(hex) = part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
            (hex, 16)
        } else if part.len() > 1 && part.starts_with('0') {
            (&part[1..], 8)
        } else {
            (part, 10)
        };
    if digits.is_empty() {
        return (radix != 10).then_some(0);
    }
    if !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    // Longer than any valid part: refuse rather than overflow.
    if digits.trim_start_matches('0').len() > 12 {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// The WHATWG IPv4 parser: up to four parts, the last filling the remaining bytes.
fn parse_ipv4(host: &str) -> Option<Ipv4Addr> {
    let mut parts: Vec<&str> = host.split('.').collect();
    if parts.last() == Some(&"") && parts.len() > 1 {
        parts.pop();
    }
    if parts.len() > 4 {
        return None;
    }
    let numbers: Vec<u64> = parts
        .iter()
        .map(|p| ipv4_number(p))
        .collect::<Option<_>>()?;
    let (last, init) = numbers.split_last()?;
    if init.iter().any(|&n| n > 255) || *last >= 256u64.pow(5 - numbers.len() as u32) {
        return None;
    }
    let mut value = *last;
    for (i, n) in init.iter().enumerate() {
        value += n << (8 * (3 - i));
    }
    u32::try_from(value).ok().map(Ipv4Addr::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(host: &str) -> IpAddr {
        match Host::parse(host) {
            Ok(Host::Ip(ip)) => ip,
            other => panic!("{host}: {other:?}"),
        }
    }

    #[test]
    fn numeric_spellings_of_an_address_are_read_as_browsers_read_them() {
        let loopback: IpAddr = "127.0.0.1".parse().unwrap();
        for host in [
            "127.0.0.1",
            "2130706433",
            "0x7f000001",
            "0X7F000001",
            "0177.0.0.1",
            "0177.0.0.01",
            "127.1",
            "127.0.1",
            "0x7f.1",
            "0x7f.0.0.0x1",
            "127.0.0.1.",
            "017700000001",
        ] {
            assert_eq!(ip(host), loopback, "{host}");
        }
        assert_eq!(ip("0"), "0.0.0.0".parse::<IpAddr>().unwrap());
        assert_eq!(
            ip("0xa9fea9fe"),
            "169.254.169.254".parse::<IpAddr>().unwrap()
        );
        assert_eq!(ip("[::1]"), "::1".parse::<IpAddr>().unwrap());
        assert_eq!(
            ip("[::ffff:7f00:1]"),
            "::ffff:127.0.0.1".parse::<IpAddr>().unwrap()
        );
    }

    #[test]
    fn ambiguous_or_invalid_numeric_hosts_are_errors() {
        for host in [
            "1.2.3.4.5",
            "256.0.0.1",
            "1.2.3.256",
            "4294967296",
            "0x1.0x2.0x3.0x4.5",
            "08.0.0.1",
            "99999999999999999999999",
            "[::1",
            "[fe80::1%25eth0]",
            "127.0.0.%31",
            "",
            "a..b",
        ] {
            assert!(Host::parse(host).is_err(), "{host} must be refused");
        }
        // "0x" alone is zero, as in browsers.
        assert_eq!(ip("1.2.3.0x"), "1.2.3.0".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn names_are_lower_case_without_the_trailing_dot() {
        assert_eq!(
            Host::parse("Data.Example.").unwrap(),
            Host::Name("data.example".into())
        );
        assert_eq!(
            Host::parse("1a.example").unwrap(),
            Host::Name("1a.example".into())
        );
        assert_eq!(
            Host::parse("localhost").unwrap(),
            Host::Name("localhost".into())
        );
    }
}
