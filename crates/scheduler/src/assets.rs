//! Turning the request's assets into host files (design #15): inline text, local files under
//! configured roots only, and remote files fetched with a timeout, a size cap and an optional
//! host allow-list.

use crate::config::RemoteConfig;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;
use verdict_contracts::{Asset, AssetKind};
use verdict_scripts::join_inside;

/// Why an asset could not be had. The message names the asset by its field path.
#[derive(Debug, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct AssetError {
    /// The asset's place in the request, e.g. `test_data[0].inputs[1]`.
    pub field: String,
    /// What went wrong.
    pub reason: String,
}

/// Fetches assets into host files.
#[derive(Debug)]
pub struct AssetFetcher {
    local_roots: Vec<PathBuf>,
    remote: RemoteConfig,
    agent: ureq::Agent,
}

impl AssetFetcher {
    /// A fetcher reading local files only under `local_roots`.
    pub fn new(local_roots: &[PathBuf], remote: RemoteConfig) -> Self {
        let local_roots = local_roots
            .iter()
            .filter_map(|r| r.canonicalize().ok())
            .collect();
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_millis(remote.timeout_ms)))
            .http_status_as_error(true)
            .build()
            .into();
        AssetFetcher {
            local_roots,
            remote,
            agent,
        }
    }

    /// Writes the asset's content to `dir/<asset.name>` and returns that path.
    pub fn materialize(
        &self,
        asset: &Asset,
        dir: &Path,
        field: &str,
    ) -> Result<PathBuf, AssetError> {
        let fail = |reason: String| AssetError {
            field: field.to_owned(),
            reason,
        };
        let dest = join_inside(dir, &asset.name).map_err(|e| fail(format!("name: {e}")))?;
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| fail(format!("cannot create {}: {e}", parent.display())))?;
        }
        match asset.kind {
            AssetKind::Text => {
                let text = asset
                    .text
                    .as_deref()
                    .ok_or_else(|| fail("text: missing for a text asset".into()))?;
                std::fs::write(&dest, text)
                    .map_err(|e| fail(format!("cannot write {}: {e}", dest.display())))?;
            }
            AssetKind::Local => {
                let path = asset
                    .path
                    .as_deref()
                    .ok_or_else(|| fail("path: missing for a local asset".into()))?;
                let source = self
                    .local_path(path)
                    .map_err(|r| fail(format!("path: {r}")))?;
                std::fs::copy(&source, &dest)
                    .map_err(|e| fail(format!("path: cannot copy {path}: {e}")))?;
            }
            AssetKind::Remote => {
                let url = asset
                    .url
                    .as_deref()
                    .ok_or_else(|| fail("url: missing for a remote asset".into()))?;
                let bytes = self.fetch(url).map_err(|r| fail(format!("url: {r}")))?;
                std::fs::write(&dest, bytes)
                    .map_err(|e| fail(format!("cannot write {}: {e}", dest.display())))?;
            }
        }
        Ok(dest)
    }

    /// The canonical path of a local asset, if it lies under a configured root.
    fn local_path(&self, path: &str) -> Result<PathBuf, String> {
        if self.local_roots.is_empty() {
            return Err("local assets are disabled (no local_roots configured)".into());
        }
        let canonical = Path::new(path)
            .canonicalize()
            .map_err(|e| format!("{path}: {e}"))?;
        if !self
            .local_roots
            .iter()
            .any(|root| canonical.starts_with(root))
        {
            return Err(format!("{path} is outside the configured local roots"));
        }
        if !canonical.is_file() {
            return Err(format!("{path} is not a regular file"));
        }
        Ok(canonical)
    }

    /// The body of a remote URL, within the size cap and the host allow-list.
    fn fetch(&self, url: &str) -> Result<Vec<u8>, String> {
        if !self.remote.enabled {
            return Err("remote assets are disabled".into());
        }
        let host = host_of(url).ok_or_else(|| format!("{url} is not an http(s) URL"))?;
        if !self.remote.allow_hosts.is_empty()
            && !self
                .remote
                .allow_hosts
                .iter()
                .any(|h| h.eq_ignore_ascii_case(host))
        {
            return Err(format!("host {host} is not in the allow-list"));
        }
        let cap = self.remote.max_kb.saturating_mul(1024);
        let response = self
            .agent
            .get(url)
            .call()
            .map_err(|e| format!("GET {url}: {e}"))?;
        let mut bytes = Vec::new();
        response
            .into_body()
            .into_reader()
            .take(cap + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("GET {url}: {e}"))?;
        if bytes.len() as u64 > cap {
            return Err(format!("{url} is larger than {} KB", self.remote.max_kb));
        }
        Ok(bytes)
    }
}

/// The host of an http(s) URL.
fn host_of(url: &str) -> Option<&str> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit('@').next()?;
    let host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split(']').next()?,
        None => host_port.split(':').next()?,
    };
    (!host.is_empty()).then_some(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_parsed_from_urls() {
        assert_eq!(host_of("https://a.example:8443/x?y"), Some("a.example"));
        assert_eq!(host_of("http://u:p@h/x"), Some("h"));
        assert_eq!(host_of("http://[::1]:80/"), Some("::1"));
        assert_eq!(host_of("ftp://h/x"), None);
    }

    #[test]
    fn local_assets_outside_the_roots_are_refused() {
        let root = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        std::fs::write(other.path().join("secret"), "x").unwrap();
        std::fs::write(root.path().join("ok.in"), "1 2").unwrap();
        let fetcher = AssetFetcher::new(&[root.path().to_owned()], RemoteConfig::default());
        let out = tempfile::tempdir().unwrap();
        let bad = Asset {
            kind: AssetKind::Local,
            name: "a".into(),
            text: None,
            url: None,
            path: Some(other.path().join("secret").display().to_string()),
        };
        let err = fetcher
            .materialize(&bad, out.path(), "test_data[0].inputs[0]")
            .unwrap_err();
        assert!(
            err.to_string().starts_with("test_data[0].inputs[0]: path:"),
            "{err}"
        );
        let sneaky = Asset {
            path: Some(format!(
                "{}/../{}/secret",
                root.path().display(),
                other.path().file_name().unwrap().to_string_lossy()
            )),
            ..bad.clone()
        };
        assert!(fetcher.materialize(&sneaky, out.path(), "x").is_err());
        let good = Asset {
            path: Some(root.path().join("ok.in").display().to_string()),
            ..bad
        };
        let path = fetcher.materialize(&good, out.path(), "x").unwrap();
        assert_eq!(std::fs::read_to_string(path).unwrap(), "1 2");
    }

    /// Serves `body` once per connection on 127.0.0.1 (plain HTTP/1.1), for `count` connections.
    fn serve(body: Vec<u8>, count: usize) -> String {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            for stream in listener.incoming().take(count) {
                let Ok(mut stream) = stream else { continue };
                let mut request = [0u8; 4096];
                let _ = stream.read(&mut request);
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&body);
            }
        });
        format!("http://127.0.0.1:{}/data/testdata.in", addr.port())
    }

    fn remote(url: String) -> Asset {
        Asset {
            kind: AssetKind::Remote,
            name: "testdata.in".into(),
            text: None,
            url: Some(url),
            path: None,
        }
    }

    #[test]
    fn remote_assets_are_fetched_over_http() {
        let url = serve(b"1 2\n".to_vec(), 1);
        let fetcher = AssetFetcher::new(
            &[],
            RemoteConfig {
                allow_hosts: vec!["127.0.0.1".into()],
                ..RemoteConfig::default()
            },
        );
        let out = tempfile::tempdir().unwrap();
        let path = fetcher
            .materialize(&remote(url), out.path(), "test_data[0].inputs[0]")
            .unwrap();
        assert_eq!(std::fs::read(path).unwrap(), b"1 2\n");
    }

    #[test]
    fn remote_assets_over_the_size_cap_are_refused() {
        let url = serve(vec![b'x'; 3000], 1);
        let fetcher = AssetFetcher::new(
            &[],
            RemoteConfig {
                max_kb: 2,
                ..RemoteConfig::default()
            },
        );
        let out = tempfile::tempdir().unwrap();
        let err = fetcher
            .materialize(&remote(url), out.path(), "test_data[0].inputs[0]")
            .unwrap_err();
        assert!(err.to_string().contains("larger than 2 KB"), "{err}");
    }

    #[test]
    fn an_unreachable_remote_asset_is_an_error_naming_it() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let fetcher = AssetFetcher::new(
            &[],
            RemoteConfig {
                timeout_ms: 2000,
                ..RemoteConfig::default()
            },
        );
        let out = tempfile::tempdir().unwrap();
        let err = fetcher
            .materialize(
                &remote(format!("http://127.0.0.1:{port}/x")),
                out.path(),
                "standard.source_files[0]",
            )
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("standard.source_files[0]: url: GET http://127.0.0.1:"),
            "{err}"
        );
    }

    #[test]
    fn remote_hosts_outside_the_allow_list_are_refused() {
        let remote = RemoteConfig {
            allow_hosts: vec!["data.example".into()],
            ..RemoteConfig::default()
        };
        let fetcher = AssetFetcher::new(&[], remote);
        let asset = Asset {
            kind: AssetKind::Remote,
            name: "a".into(),
            text: None,
            url: Some("http://127.0.0.1:9/x".into()),
            path: None,
        };
        let out = tempfile::tempdir().unwrap();
        let err = fetcher.materialize(&asset, out.path(), "f").unwrap_err();
        assert!(err.to_string().contains("allow-list"), "{err}");
    }
}
