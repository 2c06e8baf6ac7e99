//! Networks an operator allows (`allow_networks = ["10.1.0.0/16", "fd00::/8"]`).

use serde::{Deserialize, Deserializer};
use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

/// An IP network in CIDR notation (`10.0.0.0/8`, `fd00::/8`; a bare address is one host).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Network {
    base: IpAddr,
    prefix: u8,
}

impl Network {
    /// Whether `ip` (IPv4-mapped IPv6 read as IPv4) lies in this network.
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.base, ip.to_canonical()) {
            (IpAddr::V4(base), IpAddr::V4(ip)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(ip) & mask == u32::from(base) & mask
            }
            (IpAddr::V6(base), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(ip) & mask == u128::from(base) & mask
            }
            _ => false,
        }
    }
}

impl fmt::Display for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.base, self.prefix)
    }
}

impl FromStr for Network {
    type Err = String;

    fn from_str(text: &str) -> Result<Network, String> {
        let (addr, prefix) = match text.split_once('/') {
            Some((addr, prefix)) => (addr, Some(prefix)),
            None => (text, None),
        };
        let base = addr
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .map_err(|_| {
                format!("{text:?} is not a network (CIDR such as 10.0.0.0/8 or fd00::/8)")
            })?
            .to_canonical();
        let max = if base.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => max,
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= max)
                .ok_or_else(|| format!("{text:?}: the prefix length must be 0 to {max}"))?,
        };
        Ok(Network { base, prefix })
    }
}

impl<'de> Deserialize<'de> for Network {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(text: &str) -> Network {
        text.parse().unwrap()
    }

    #[test]
    fn networks_contain_their_addresses_only() {
        assert!(net("10.0.0.0/8").contains("10.200.1.1".parse().unwrap()));
        assert!(!net("10.0.0.0/8").contains("11.0.0.1".parse().unwrap()));
        assert!(net("10.0.0.0/8").contains("::ffff:10.9.9.9".parse().unwrap()));
        assert!(net("127.0.0.2").contains("127.0.0.2".parse().unwrap()));
        assert!(!net("127.0.0.2").contains("127.0.0.1".parse().unwrap()));
        assert!(net("fd00::/8").contains("fd12::1".parse().unwrap()));
        assert!(!net("fd00::/8").contains("10.0.0.1".parse().unwrap()));
        assert!(net("0.0.0.0/0").contains("1.2.3.4".parse().unwrap()));
    }

    #[test]
    fn malformed_networks_are_errors() {
        for text in [
            "10.0.0.0/33",
            "fd00::/129",
            "10.0.0/8",
            "example.com",
            "1.2.3.4/x",
            "",
        ] {
            assert!(text.parse::<Network>().is_err(), "{text}");
        }
    }
}
