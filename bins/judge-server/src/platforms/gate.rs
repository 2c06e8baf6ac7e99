//! Who may call another sandbox's API (Piston, Jobe, Judge0; docs/compat.md): a caller is let
//! in by one of the section's keys, sent in that API's own header (each key names the
//! category its calls count under), or by its network (the section's `network_category`): the
//! caller's address as its connection set it ([`ClientAddr`]), matched against [`Network`]s.

use crate::error::ConfigError;
use serde::Deserialize;
use std::net::IpAddr;
/// An address range an operator lets in (`addr/prefix`): verdict-fetch's, which remote assets'
/// allow-lists use too.
pub use verdict_fetch::Network;

/// One key of an API section: the secret a client sends in that API's header.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiKey {
    /// The secret (at least 16 characters).
    pub key: String,
    /// The category its calls count under.
    #[serde(default = "default_category")]
    pub category: String,
}

/// The category of callers without a category of their own.
pub fn default_category() -> String {
    "default".into()
}

/// The loopback networks: the default of every API section.
pub fn loopback() -> Vec<String> {
    vec!["127.0.0.0/8".into(), "::1/128".into()]
}

/// Who may call a keyed API: the fields `[jobe]`, `[piston]` and `[judge0]` share, flattened
/// into each (their keys stand at the section's top level, as before).
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct ApiAccess {
    /// Serve the routes at all (off by default).
    pub enabled: bool,
    /// Keys sent in the API's own header, each with its category.
    pub keys: Vec<ApiKey>,
    /// Networks (`addr/prefix`) whose clients may call without a key; loopback by default.
    pub networks: Vec<String>,
    /// The category of calls let in by their network.
    pub network_category: String,
}

impl Default for ApiAccess {
    fn default() -> Self {
        ApiAccess {
            enabled: false,
            keys: Vec::new(),
            networks: loopback(),
            network_category: default_category(),
        }
    }
}

impl ApiAccess {
    /// Checks the keys and networks, naming the key at fault under `section`.
    pub fn check(&self, section: &str) -> Result<(), ConfigError> {
        check(section, &self.keys, &self.networks)
    }

    /// The gate they make.
    pub fn gate(&self) -> Gate {
        Gate::new(&self.keys, &self.networks, &self.network_category)
    }
}

/// Why a caller is not let in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denied {
    /// No key was sent and the caller's network is not one of the section's.
    NoKey,
    /// A key was sent and it is not one of the section's.
    UnknownKey,
}

/// A section's keys and networks, parsed.
#[derive(Debug, Clone)]
pub struct Gate {
    keys: Vec<ApiKey>,
    networks: Vec<Network>,
    network_category: String,
}

impl Gate {
    /// The gate of a section's (checked) keys and networks.
    pub fn new(keys: &[ApiKey], networks: &[String], network_category: &str) -> Gate {
        Gate {
            keys: keys.to_vec(),
            networks: networks
                .iter()
                .filter_map(|n| n.parse::<Network>().ok())
                .collect(),
            network_category: network_category.to_string(),
        }
    }

    /// The category a caller's calls count under, or why it is not let in: a known key names
    /// its category; otherwise a caller in the networks counts under `network_category` (an
    /// unknown key is then ignored, as a Jobe that requires no keys ignores one).
    pub fn category(
        &self,
        client: Option<ClientAddr>,
        key: Option<&str>,
    ) -> Result<String, Denied> {
        let key = key.map(str::trim).filter(|k| !k.is_empty());
        if let Some(key) = key
            && let Some(found) = self
                .keys
                .iter()
                .find(|k| constant_time_eq(k.key.as_bytes(), key.as_bytes()))
        {
            return Ok(found.category.clone());
        }
        let inside =
            client.is_some_and(|ClientAddr(ip)| self.networks.iter().any(|n| n.contains(ip)));
        match (inside, key) {
            (true, _) => Ok(self.network_category.clone()),
            (false, None) => Err(Denied::NoKey),
            (false, Some(_)) => Err(Denied::UnknownKey),
        }
    }
}

/// Whether `a` and `b` are equal, in a time that does not tell where they differ.
pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Checks a section's keys and networks, naming the key at fault (`section.keys[0].key`).
pub fn check(section: &str, keys: &[ApiKey], networks: &[String]) -> Result<(), ConfigError> {
    let error = |key: String, message: String| ConfigError::Value { key, message };
    for (i, network) in networks.iter().enumerate() {
        network
            .parse::<Network>()
            .map_err(|m| error(format!("{section}.networks[{i}]"), m))?;
    }
    for (i, key) in keys.iter().enumerate() {
        if key.key.len() < 16 || key.key.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(error(
                format!("{section}.keys[{i}].key"),
                "at least 16 characters, no spaces".into(),
            ));
        }
    }
    Ok(())
}

/// The client's address, set on each request by the connection that carried it.
#[derive(Debug, Clone, Copy)]
pub struct ClientAddr(pub IpAddr);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_names_its_category_and_an_unknown_key_lets_in_only_the_networks() {
        let gate = Gate::new(
            &[ApiKey {
                key: "course-key-0123456789".into(),
                category: "course".into(),
            }],
            &loopback(),
            "default",
        );
        let local = Some(ClientAddr("127.0.0.1".parse().expect("ip")));
        let remote = Some(ClientAddr("10.1.2.3".parse().expect("ip")));
        assert_eq!(gate.category(local, None), Ok("default".into()));
        assert_eq!(gate.category(remote, None), Err(Denied::NoKey));
        assert_eq!(
            gate.category(remote, Some("course-key-0123456789")),
            Ok("course".into())
        );
        assert_eq!(gate.category(local, Some("wrong")), Ok("default".into()));
        assert_eq!(
            gate.category(remote, Some("wrong")),
            Err(Denied::UnknownKey)
        );
    }

    #[test]
    fn networks_hold_their_addresses_and_nothing_else() {
        let loopback = "127.0.0.0/8".parse::<Network>().expect("parsed");
        assert!(loopback.contains("127.1.2.3".parse().expect("ip")));
        assert!(loopback.contains("::ffff:127.0.0.1".parse().expect("ip")));
        assert!(!loopback.contains("10.0.0.1".parse().expect("ip")));
        let v6 = "::1/128".parse::<Network>().expect("parsed");
        assert!(v6.contains("::1".parse().expect("ip")));
        assert!(!v6.contains("::2".parse().expect("ip")));
        let any = "0.0.0.0/0".parse::<Network>().expect("parsed");
        assert!(any.contains("8.8.8.8".parse().expect("ip")));
        assert!("10.0.0.0/33".parse::<Network>().is_err());
        assert!("nope".parse::<Network>().is_err());
    }

    #[test]
    fn every_keyed_sections_access_is_read_at_its_top_level_and_an_unknown_key_refused() {
        for section in ["jobe", "piston", "judge0"] {
            let text = format!(
                "[{section}]\nenabled = true\nnetwork_category = \"lab\"\nnetworks = [\"10.0.0.0/8\"]\n\
                 keys = [{{ key = \"a-key-of-sixteen-chars\", category = \"c\" }}]\nmax_wait_ms = 7\n"
            );
            let config = crate::config::ServerConfig::from_toml(&text).expect("read");
            let access = match section {
                "jobe" => &config.jobe.access,
                "piston" => &config.piston.access,
                _ => &config.judge0.access,
            };
            assert!(access.enabled, "{section}");
            assert_eq!(access.network_category, "lab", "{section}");
            assert_eq!(access.networks, ["10.0.0.0/8"], "{section}");
            assert_eq!(access.keys[0].category, "c", "{section}");
            let error =
                crate::config::ServerConfig::from_toml(&format!("[{section}]\nenabld = true\n"))
                    .expect_err("refused")
                    .to_string();
            assert!(error.contains("enabld"), "{section}: {error}");
            let error = crate::config::ServerConfig::from_toml(&format!(
                "[{section}]\nkeys = [{{ key = \"short\" }}]\n"
            ))
            .expect_err("refused")
            .to_string();
            assert!(error.contains(&format!("{section}.keys[0].key")), "{error}");
        }
    }
}
