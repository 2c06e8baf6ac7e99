//! Whether a language's toolchain is installed here, and which version it is.
//!
//! Toolchains are trusted host programs: their presence is checked by looking their names up
//! in the sandbox's `PATH` (cheap, done before every compile) and their version by running the
//! profile's version command outside the sandbox (for `judge languages`).

use crate::language::LanguageProfile;
use serde::Serialize;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};
use verdict_contracts::Language;

/// The `PATH` programs see inside the sandbox.
pub const SANDBOX_PATH: &str = verdict_sandbox::BOX_ENV_PATH;

/// A language's toolchain on this host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolchainStatus {
    /// The language.
    pub language: String,
    /// Whether every program the profile needs was found.
    pub ready: bool,
    /// The version it reports (first line), when ready.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// What is missing and how to install it, when not ready.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
    /// The libraries a program can use (the profile's `libraries` probe), when ready.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub libraries: Vec<String>,
}

/// The programs of the profile (compile, check, run and version commands) not found in the sandbox's PATH.
pub fn missing_programs(profile: &LanguageProfile) -> Vec<String> {
    let mut missing = Vec::new();
    let commands = [
        profile.compile.as_deref(),
        profile.check.as_deref(),
        Some(profile.run.as_slice()),
    ];
    for argv in commands.into_iter().flatten() {
        let Some(program) = argv.first() else {
            continue;
        };
        if program.starts_with("./") || program.contains('{') {
            continue;
        }
        if find_program(program).is_none() && !missing.contains(program) {
            missing.push(program.clone());
        }
    }
    missing
}

/// The message for a language whose toolchain is not installed.
pub fn not_installed_message(
    language: Language,
    profile: &LanguageProfile,
    missing: &[String],
) -> String {
    format!(
        "toolchain for {language} is not installed: {} not found; install the Debian package {} (scripts/install-toolchains.sh {language})",
        missing.join(", "),
        profile.package
    )
}

/// The absolute path of a program name in the sandbox's PATH (or the path itself when absolute).
pub fn find_program(name: &str) -> Option<std::path::PathBuf> {
    if name.starts_with('/') {
        return Path::new(name).is_file().then(|| name.into());
    }
    SANDBOX_PATH
        .split(':')
        .map(|dir| Path::new(dir).join(name))
        .find(|p| p.is_file())
}

/// Probes a language: programs present, then its version command (at most `timeout`).
pub fn probe(language: Language, profile: &LanguageProfile, timeout: Duration) -> ToolchainStatus {
    let missing = missing_programs(profile);
    if !missing.is_empty() {
        return ToolchainStatus {
            language: language.to_string(),
            ready: false,
            version: None,
            missing: Some(not_installed_message(language, profile, &missing)),
            libraries: Vec::new(),
        };
    }
    ToolchainStatus {
        language: language.to_string(),
        ready: true,
        version: version_of(profile, timeout),
        missing: None,
        libraries: libraries_of(profile, timeout),
    }
}

/// Probes every language of the contract in parallel, in the contract's order; a language
/// without a profile is reported as missing.
pub fn probe_all(profiles: &crate::LanguageProfiles, timeout: Duration) -> Vec<ToolchainStatus> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = Language::ALL
            .iter()
            .map(|&language| {
                scope.spawn(move || match profiles.get(language) {
                    Some(profile) => probe(language, profile, timeout),
                    None => ToolchainStatus {
                        language: language.to_string(),
                        ready: false,
                        version: None,
                        missing: Some("no language profile on this judge".into()),
                        libraries: Vec::new(),
                    },
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    })
}

/// Waits at most `timeout` for `child` to exit: its status, or `None` (it was killed and
/// reaped, or could not be waited for).
pub fn wait_within(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if started.elapsed() < timeout => std::thread::sleep(Duration::from_millis(2)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// What `argv` (its program looked up in the sandbox's `PATH`) writes on stdout and stderr,
/// when it ends within `timeout`; `None` for a program that is not there or did not end.
fn output_of(argv: &[String], timeout: Duration) -> Option<std::process::Output> {
    let (program, args) = argv.split_first()?;
    let path = find_program(program)?;
    let mut child = Command::new(path)
        .args(args)
        .env("PATH", SANDBOX_PATH)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    wait_within(&mut child, timeout)?;
    child.wait_with_output().ok()
}

/// The libraries the profile's `libraries` command names (none when it has none or fails).
fn libraries_of(profile: &LanguageProfile, timeout: Duration) -> Vec<String> {
    let Some(output) = profile
        .libraries
        .as_deref()
        .and_then(|argv| output_of(argv, timeout))
        .filter(|o| o.status.success())
    else {
        return Vec::new();
    };
    String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

/// The first non-empty line the version command prints (stdout, else stderr).
fn version_of(profile: &LanguageProfile, timeout: Duration) -> Option<String> {
    let output = output_of(&profile.version, timeout)?;
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    text.lines()
        .map(str::trim)
        .find(|l| {
            !l.is_empty() && !l.starts_with("Picked up") && !l.contains("warning: Options -Xverify")
        })
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LanguageProfiles;

    #[test]
    fn a_missing_program_is_named_with_its_package() {
        let profile = LanguageProfile {
            run: vec!["verdict-no-such-interpreter".into(), "{main}".into()],
            version: vec!["verdict-no-such-interpreter".into()],
            package: "no-such-package".into(),
            ..LanguageProfile::default()
        };
        let status = probe(Language::Lua, &profile, Duration::from_secs(1));
        assert!(!status.ready);
        let message = status.missing.unwrap();
        assert!(
            message.starts_with("toolchain for lua is not installed: verdict-no-such-interpreter"),
            "{message}"
        );
        assert!(message.contains("no-such-package"));
    }

    #[test]
    fn c_is_ready_with_a_version() {
        let profiles = LanguageProfiles::builtin().unwrap();
        let status = probe(
            Language::C,
            profiles.get(Language::C).unwrap(),
            Duration::from_secs(5),
        );
        assert!(status.ready, "{status:?}");
        assert!(status.version.is_some());
    }

    /// `judge languages` says which Python packages a box can import (numpy where
    /// Debian's python3-numpy is installed), found by the profile's `libraries` probe.
    #[test]
    fn python3_lists_numpy_where_python3_numpy_is_installed() {
        let profiles = LanguageProfiles::builtin().unwrap();
        let python3 = profiles.get(Language::Python3).unwrap();
        if !missing_programs(python3).is_empty() {
            return;
        }
        let status = probe(Language::Python3, python3, Duration::from_secs(10));
        let numpy = Path::new("/usr/lib/python3/dist-packages/numpy").is_dir();
        assert_eq!(
            status.libraries.iter().any(|l| l == "numpy"),
            numpy,
            "{status:?}"
        );
        let silent = LanguageProfile {
            libraries: Some(vec!["false".into()]),
            ..python3.clone()
        };
        assert!(libraries_of(&silent, Duration::from_secs(5)).is_empty());
    }
}
