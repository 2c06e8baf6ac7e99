//! Turning the request's assets into host files (design #15): inline text, local files under
//! configured roots only, and remote files fetched through the SSRF guard of `verdict-fetch`
//! (only globally routable addresses unless the operator allows a host or network), with a
//! timeout and a size cap.

use crate::config::RemoteConfig;
use std::path::{Path, PathBuf};
use std::time::Duration;
use verdict_contracts::{Asset, AssetKind};
use verdict_fetch::{Fetcher, Policy};
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

/// Makes the error of the asset at `field` from a reason.
fn failure_of(field: &str) -> impl Fn(String) -> AssetError + '_ {
    move |reason| AssetError {
        field: field.to_owned(),
        reason,
    }
}

/// The canonical form of each configured local root; a root that does not exist or is not a
/// directory is an error naming it (`local_roots[1]: /srv/data: No such file or directory`).
pub fn check_local_roots(local_roots: &[PathBuf]) -> Result<Vec<PathBuf>, AssetError> {
    local_roots
        .iter()
        .enumerate()
        .map(|(i, root)| {
            let fail = |reason: String| AssetError {
                field: format!("local_roots[{i}]"),
                reason: format!("{}: {reason}", root.display()),
            };
            let canonical = root.canonicalize().map_err(|e| fail(e.to_string()))?;
            if !canonical.is_dir() {
                return Err(fail("not a directory".into()));
            }
            Ok(canonical)
        })
        .collect()
}

/// Fetches assets into host files.
#[derive(Debug)]
pub struct AssetFetcher {
    local_roots: Vec<PathBuf>,
    remote: RemoteConfig,
    http: Fetcher,
}

impl AssetFetcher {
    /// A fetcher reading local files only under `local_roots`, each of which must exist.
    pub fn new(local_roots: &[PathBuf], remote: RemoteConfig) -> Result<Self, AssetError> {
        let local_roots = check_local_roots(local_roots)?;
        let http = Fetcher::new(Policy {
            allow_hosts: remote.allow_hosts.clone(),
            allow_networks: remote.allow_networks.clone(),
            max_redirects: remote.max_redirects,
            timeout: Duration::from_millis(remote.timeout_ms),
        });
        Ok(AssetFetcher {
            local_roots,
            remote,
            http,
        })
    }

    /// Writes the asset's content to `dir/<asset.name>` and returns that path.
    pub fn materialize(
        &self,
        asset: &Asset,
        dir: &Path,
        field: &str,
    ) -> Result<PathBuf, AssetError> {
        self.materialize_as(asset, dir, "", field)
    }

    /// [`AssetFetcher::materialize`] under the name `<prefix><name>`.
    fn materialize_as(
        &self,
        asset: &Asset,
        dir: &Path,
        prefix: &str,
        field: &str,
    ) -> Result<PathBuf, AssetError> {
        let fail = failure_of(field);
        let dest =
            prefixed_inside(dir, prefix, &asset.name).map_err(|e| fail(format!("name: {e}")))?;
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

    /// Stores a test datum's asset in `dir` as `<prefix><name>` for
    /// [`AssetFetcher::stored_path`]: a local asset that can be read in place is left where it
    /// is (large test sets cost no second copy); any other asset is materialised. (A datum's
    /// inputs and outputs share one cache directory as `in.<name>` and `out.<name>`: a
    /// directory fewer to make each, which costs on some file systems: docs/speed.md.)
    pub fn store(
        &self,
        asset: &Asset,
        dir: &Path,
        prefix: &str,
        field: &str,
    ) -> Result<(), AssetError> {
        if self.in_place(asset).is_none() {
            self.materialize_as(asset, dir, prefix, field)?;
        }
        Ok(())
    }

    /// Where an asset stored by [`AssetFetcher::store`] in `dir` with `prefix` is read: the
    /// local file itself when it is read in place, else `dir/<prefix><name>`.
    pub fn stored_path(
        &self,
        asset: &Asset,
        dir: &Path,
        prefix: &str,
        field: &str,
    ) -> Result<PathBuf, AssetError> {
        if let Some(path) = self.in_place(asset) {
            return Ok(path);
        }
        let fail = failure_of(field);
        let dest =
            prefixed_inside(dir, prefix, &asset.name).map_err(|e| fail(format!("name: {e}")))?;
        if asset.kind == AssetKind::Local && !dest.is_file() {
            // Read in place when the datum was stored, and no longer readable so.
            let path = asset.path.as_deref().unwrap_or_default();
            let reason = self
                .local_path(path)
                .err()
                .unwrap_or_else(|| format!("{path} changed since it was first read"));
            return Err(fail(format!("path: {reason}")));
        }
        Ok(dest)
    }

    /// The local file itself, when a test may read it in place: it lies under a configured
    /// root (links resolved), is a regular file, everyone may read it and nobody but its owner
    /// may write to it (it is hard-linked into boxes, whose programs run as other users).
    /// Otherwise `None`: it is copied as before.
    fn in_place(&self, asset: &Asset) -> Option<PathBuf> {
        use std::os::unix::fs::PermissionsExt;
        if asset.kind != AssetKind::Local {
            return None;
        }
        let path = self.local_path(asset.path.as_deref()?).ok()?;
        let mode = std::fs::metadata(&path).ok()?.permissions().mode();
        (mode & 0o022 == 0 && mode & 0o004 != 0).then_some(path)
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

    /// The body of a remote URL, within the size cap and the address policy.
    fn fetch(&self, url: &str) -> Result<Vec<u8>, String> {
        if !self.remote.enabled {
            return Err("remote assets are disabled".into());
        }
        self.http
            .get(url, self.remote.max_kb.saturating_mul(1024))
            .map_err(|e| e.to_string())
    }
}

/// `dir/<prefix><name>`, `name` checked as [`join_inside`] checks it (the prefix goes on its
/// first component, which stays a plain name: `in.` and `sub/x` give `in.sub/x`, `in.` and
/// `./x` give `in../x`).
fn prefixed_inside(
    dir: &Path,
    prefix: &str,
    name: &str,
) -> Result<PathBuf, verdict_scripts::ScriptError> {
    join_inside(dir, name)?;
    Ok(dir.join(format!("{prefix}{name}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_assets_outside_the_roots_are_refused() {
        let root = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        std::fs::write(other.path().join("secret"), "x").unwrap();
        std::fs::write(root.path().join("ok.in"), "1 2").unwrap();
        let fetcher =
            AssetFetcher::new(&[root.path().to_owned()], RemoteConfig::default()).unwrap();
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

    fn local(path: &Path) -> Asset {
        Asset {
            kind: AssetKind::Local,
            name: "testdata.in".into(),
            text: None,
            url: None,
            path: Some(path.display().to_string()),
        }
    }

    #[test]
    fn local_test_data_is_read_in_place_without_a_copy() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().unwrap();
        let data = root.path().join("big.in");
        std::fs::write(&data, "1 2\n").unwrap();
        std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o644)).unwrap();
        let fetcher =
            AssetFetcher::new(&[root.path().to_owned()], RemoteConfig::default()).unwrap();
        let cache = tempfile::tempdir().unwrap();
        let asset = local(&data);
        fetcher.store(&asset, cache.path(), "", "f").unwrap();
        assert_eq!(
            std::fs::read_dir(cache.path()).unwrap().count(),
            0,
            "nothing copied"
        );
        let path = fetcher.stored_path(&asset, cache.path(), "", "f").unwrap();
        assert_eq!(path, data.canonicalize().unwrap());

        // A file others may write to is copied (boxes get hard links to what tests read).
        std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o666)).unwrap();
        fetcher.store(&asset, cache.path(), "", "f").unwrap();
        let path = fetcher.stored_path(&asset, cache.path(), "", "f").unwrap();
        assert_eq!(path, cache.path().join("testdata.in"));
        assert_eq!(std::fs::read(&path).unwrap(), b"1 2\n");
    }

    #[test]
    fn a_link_out_of_the_local_roots_is_neither_read_in_place_nor_copied() {
        let root = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let secret = other.path().join("secret");
        std::fs::write(&secret, "s3cret").unwrap();
        let link = root.path().join("escape.in");
        std::os::unix::fs::symlink(&secret, &link).unwrap();
        let fetcher =
            AssetFetcher::new(&[root.path().to_owned()], RemoteConfig::default()).unwrap();
        let cache = tempfile::tempdir().unwrap();
        let (asset, field) = (local(&link), "test_data[0].inputs[0]");
        let refusals = [
            fetcher.store(&asset, cache.path(), "", field).map(drop),
            fetcher
                .stored_path(&asset, cache.path(), "", field)
                .map(drop),
        ];
        for refusal in refusals {
            let err = refusal.unwrap_err();
            let message = err.to_string();
            assert!(
                message.contains("outside the configured local roots"),
                "{err}"
            );
        }
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

    /// A config allowing the loopback test server by name.
    fn loopback_allowed() -> RemoteConfig {
        RemoteConfig {
            allow_hosts: vec!["127.0.0.1".into()],
            timeout_ms: 5000,
            ..RemoteConfig::default()
        }
    }

    #[test]
    fn remote_assets_are_fetched_over_http() {
        let url = serve(b"1 2\n".to_vec(), 1);
        let fetcher = AssetFetcher::new(&[], loopback_allowed()).unwrap();
        let out = tempfile::tempdir().unwrap();
        let path = fetcher
            .materialize(&remote(url), out.path(), "test_data[0].inputs[0]")
            .unwrap();
        assert_eq!(std::fs::read(path).unwrap(), b"1 2\n");
    }

    #[test]
    fn remote_assets_at_internal_addresses_are_refused_by_default() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let fetcher = AssetFetcher::new(&[], RemoteConfig::default()).unwrap();
        let out = tempfile::tempdir().unwrap();
        for host in [
            "127.0.0.1",
            "0x7f000001",
            "localhost",
            "[::1]",
            "169.254.169.254",
        ] {
            let url = format!("http://{host}:{port}/secret");
            let err = fetcher
                .materialize(&remote(url.clone()), out.path(), "test_data[0].outputs[0]")
                .unwrap_err();
            let text = err.to_string();
            assert!(
                text.starts_with(&format!(
                    "test_data[0].outputs[0]: url: GET {url}: refused: "
                )),
                "{text}"
            );
        }
        assert!(
            listener.accept().is_err(),
            "the loopback server was reached"
        );
    }

    #[test]
    fn remote_assets_over_the_size_cap_are_refused() {
        let url = serve(vec![b'x'; 3000], 1);
        let fetcher = AssetFetcher::new(
            &[],
            RemoteConfig {
                max_kb: 2,
                ..loopback_allowed()
            },
        )
        .unwrap();
        let out = tempfile::tempdir().unwrap();
        let err = fetcher
            .materialize(&remote(url), out.path(), "test_data[0].inputs[0]")
            .unwrap_err();
        assert!(err.to_string().contains("larger than 2048 bytes"), "{err}");
    }

    #[test]
    fn an_unreachable_remote_asset_is_an_error_naming_it() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let fetcher = AssetFetcher::new(&[], loopback_allowed()).unwrap();
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
        let fetcher = AssetFetcher::new(&[], remote).unwrap();
        let asset = Asset {
            kind: AssetKind::Remote,
            name: "a".into(),
            text: None,
            url: Some("http://127.0.0.1:9/x".into()),
            path: None,
        };
        let out = tempfile::tempdir().unwrap();
        let err = fetcher.materialize(&asset, out.path(), "f").unwrap_err();
        assert!(err.to_string().contains("not in allow_hosts"), "{err}");
    }

    #[test]
    fn a_local_root_that_does_not_exist_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-such-root");
        let err = AssetFetcher::new(
            &[dir.path().to_owned(), missing.clone()],
            RemoteConfig::default(),
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with(&format!("local_roots[1]: {}: ", missing.display())),
            "{text}"
        );
        let file = dir.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let err = AssetFetcher::new(&[file], RemoteConfig::default()).unwrap_err();
        assert!(err.to_string().contains("not a directory"), "{err}");
    }
}
