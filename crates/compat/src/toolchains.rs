//! What this judge runs here, for the language lists other APIs publish (Piston's runtimes,
//! Jobe's languages, Judge0's languages): verdict's one list of languages, those whose
//! toolchain is installed, each with the version its toolchain reports. Each API only names
//! them its own way; none keeps a second list.

use std::sync::Arc;
use std::time::Duration;
use tokio::sync::OnceCell;
use verdict_contracts::Language;
use verdict_scheduler::Judge;

/// A language whose toolchain is installed here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// The language.
    pub language: Language,
    /// Its toolchain's version as `major.minor.patch` (`0.0.0` when it names none).
    pub version: String,
    /// The first line its version command printed.
    pub reported: String,
}

impl Installed {
    /// `language` as its version command's first line (`reported`) names it.
    pub fn from_banner(language: Language, reported: impl Into<String>) -> Installed {
        let reported = reported.into();
        Installed {
            language,
            version: semver_of(&reported).unwrap_or_else(|| "0.0.0".into()),
            reported,
        }
    }
}

/// The installed languages, probed once (toolchains do not change under a running server).
#[derive(Debug, Default)]
pub struct Toolchains {
    probed: OnceCell<Arc<Vec<Installed>>>,
}

impl Toolchains {
    /// The installed languages, in verdict's order, probing them (on a blocking thread) the
    /// first time.
    pub async fn get(&self, judge: &Judge) -> Arc<Vec<Installed>> {
        let judge = judge.clone();
        self.probed
            .get_or_init(|| async move {
                tokio::task::spawn_blocking(move || Arc::new(probe(&judge)))
                    .await
                    .unwrap_or_default()
            })
            .await
            .clone()
    }
}

/// Probes every language of verdict's list on `judge` (blocking: runs version commands).
pub fn probe(judge: &Judge) -> Vec<Installed> {
    verdict_scripts::probe_all(judge.profiles(), Duration::from_secs(20))
        .into_iter()
        .filter(|status| status.ready)
        .filter_map(|status| {
            let language = Language::from_name(&status.language)?;
            Some(Installed::from_banner(
                language,
                status.version.unwrap_or_default(),
            ))
        })
        .collect()
}

/// The first version number in a toolchain's banner, as `major.minor.patch`
/// (`go version go1.19.8 linux/amd64` -> `1.19.8`, `Python 3.11.2` -> `3.11.2`,
/// `ruby 3.1.2p20` -> `3.1.2`, `Lua 5.4` -> `5.4.0`).
pub fn semver_of(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            let parts: Vec<&str> = text[start..i]
                .split('.')
                .filter(|p| !p.is_empty())
                .take(3)
                .collect();
            if parts.len() >= 2 {
                let mut parts: Vec<String> = parts
                    .iter()
                    .map(|p| p.trim_start_matches('0'))
                    .map(|p| {
                        if p.is_empty() {
                            "0".into()
                        } else {
                            p.to_string()
                        }
                    })
                    .collect();
                parts.resize(3, "0".into());
                return Some(parts.join("."));
            }
        } else {
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn banners_give_their_first_dotted_version() {
        let cases = [
            ("go version go1.19.8 linux/amd64", "1.19.8"),
            ("Python 3.11.2", "3.11.2"),
            (
                "ruby 3.1.2p20 (2022-04-12 revision 4491bb740a) [x86_64-linux-gnu]",
                "3.1.2",
            ),
            (
                "GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)",
                "5.2.15",
            ),
            ("perl v5.36.0", "5.36.0"),
            ("Lua 5.4  Copyright (C) 1994-2022 Lua.org, PUC-Rio", "5.4.0"),
            ("12.2.0", "12.2.0"),
            ("v18.19.0", "18.19.0"),
            ("javac 17.0.15", "17.0.15"),
            ("rustc 1.63.0 (4b91a6ea7 2022-08-08)", "1.63.0"),
        ];
        for (banner, version) in cases {
            assert_eq!(semver_of(banner).as_deref(), Some(version), "{banner}");
        }
        assert_eq!(semver_of("no version here 7"), None);
    }
}
