//! Language profiles: how each language of the contract is compiled and run, as data.
//!
//! The built-in profiles live in `languages.toml` beside this crate's manifest; a user's
//! config overrides any field of any profile (see docs/languages.md). Adding a language is
//! adding a table, not code.

use crate::ScriptError;
use serde::Deserialize;
use std::collections::BTreeMap;
use verdict_contracts::Language;

/// The built-in profiles, as shipped.
pub const BUILTIN_PROFILES: &str = include_str!("../languages.toml");

/// How one language is compiled and run.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct LanguageProfile {
    /// Compiler argv (templated); `None` for interpreted languages.
    #[serde(default)]
    pub compile: Option<Vec<String>>,
    /// Syntax-check argv for interpreted languages, run as their compile step.
    #[serde(default)]
    pub check: Option<Vec<String>>,
    /// Run argv (templated), in the box holding the build.
    pub run: Vec<String>,
    /// Run argv used instead of `run` when the request names an `entry_point` (Kotlin: the
    /// class `entry_point` names rather than the one kotlinc recorded in the jar's manifest).
    #[serde(default)]
    pub run_entry: Option<Vec<String>>,
    /// Argv that prints the toolchain's version.
    pub version: Vec<String>,
    /// Argv that prints, separated by white space, the libraries a program can use in a box
    /// (those found of a list the profile names: `judge languages` reports them).
    #[serde(default)]
    pub libraries: Option<Vec<String>>,
    /// The Debian package that provides the toolchain.
    pub package: String,
    /// Processes/threads the runtime needs beyond the task's proc_limit.
    #[serde(default)]
    pub extra_processes: u32,
    /// Texts in stderr that mean the runtime ran out of its memory (Memory Limit Exceeded).
    #[serde(default)]
    pub memory_error_patterns: Vec<String>,
    /// When set, only sources ending with this suffix are passed as `{sources}`.
    #[serde(default)]
    pub sources_glob: Option<String>,
    /// Whether `entry_point` names the main file (Python, JS) rather than a class.
    #[serde(default)]
    pub entry_is_file: bool,
    /// How `{main_class}` is found without an `entry_point`: the first file's path
    /// (`first-file`, the default) or the Scala object with `main` (`scala-object`).
    #[serde(default)]
    pub main_class: crate::entry::MainClassRule,
    /// Variables added to the environment of compile and run.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Host directories the toolchain needs beyond the sandbox's defaults (read-only).
    #[serde(default)]
    pub mounts: Vec<String>,
    /// A file the build must produce (e.g. `run` for make); its absence is a Compilation Error.
    #[serde(default)]
    pub required_output: Option<String>,
    /// Heap in MiB for a managed runtime when the task sets no memory limit.
    #[serde(default = "default_heap_mb")]
    pub default_heap_mb: u64,
    /// What to tell the author of a program that failed to compile with a given message (a
    /// feature newer than the toolchain verdict runs), appended to the compile log.
    #[serde(default)]
    pub compile_hints: Vec<CompileHint>,
}

/// A note appended to a failed compile's log when the compiler's output contains a text.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompileHint {
    /// The text in the compiler's output (`unresolved reference: readln`).
    pub when: String,
    /// What to tell: why, and what to write instead or where a newer toolchain comes from.
    pub say: String,
}

impl CompileHint {
    /// The notes of `hints` whose text is in `log`, one per line, each after `hint: `.
    pub fn notes_for(hints: &[CompileHint], log: &str) -> String {
        hints
            .iter()
            .filter(|h| log.contains(&h.when))
            .map(|h| format!("\nhint: {}", h.say))
            .collect()
    }
}

fn default_heap_mb() -> u64 {
    1024
}

impl LanguageProfile {
    /// Whether the language has a real compile step (not just a syntax check).
    pub fn is_compiled(&self) -> bool {
        self.compile.is_some()
    }
    /// The run argv template for a build with these values: `run_entry` when the request
    /// named an `entry_point` and the profile has one, else `run`.
    pub fn run_command(&self, vars: &TemplateVars) -> &[String] {
        match (&self.run_entry, vars.entry_given) {
            (Some(run_entry), true) => run_entry,
            _ => &self.run,
        }
    }
    /// The compile-time argv template: the compiler, the syntax check, or none.
    pub fn compile_template(&self) -> Option<&[String]> {
        self.compile.as_deref().or(self.check.as_deref())
    }
}

/// Every language profile known to this judge.
#[derive(Debug, Clone, Default)]
pub struct LanguageProfiles {
    profiles: BTreeMap<Language, LanguageProfile>,
}

impl LanguageProfiles {
    /// The built-in profiles.
    pub fn builtin() -> Result<Self, ScriptError> {
        Self::from_toml(BUILTIN_PROFILES, None)
    }

    /// Profiles from TOML text, each table optionally overridden field by field by `overrides`.
    pub fn from_toml(text: &str, overrides: Option<&toml::Table>) -> Result<Self, ScriptError> {
        let mut table: toml::Table = toml::from_str(text)
            .map_err(|e| ScriptError::Profiles(format!("languages.toml: {e}")))?;
        if let Some(overrides) = overrides {
            for (name, value) in overrides {
                match (table.get_mut(name), value) {
                    (Some(toml::Value::Table(base)), toml::Value::Table(fields)) => {
                        for (k, v) in fields {
                            base.insert(k.clone(), v.clone());
                        }
                    }
                    _ => {
                        table.insert(name.clone(), value.clone());
                    }
                }
            }
        }
        let mut profiles = BTreeMap::new();
        for (name, value) in table {
            let language = Language::from_name(&name).ok_or_else(|| {
                ScriptError::Profiles(format!("languages.{name}: not a language of the contract"))
            })?;
            let profile: LanguageProfile = value
                .try_into()
                .map_err(|e| ScriptError::Profiles(format!("languages.{name}: {e}")))?;
            if profile.run.is_empty() {
                return Err(ScriptError::Profiles(format!(
                    "languages.{name}.run: must not be empty"
                )));
            }
            profiles.insert(language, profile);
        }
        Ok(LanguageProfiles { profiles })
    }

    /// The profile of a language, if this judge has one.
    pub fn get(&self, language: Language) -> Option<&LanguageProfile> {
        self.profiles.get(&language)
    }

    /// Every profile, by language.
    pub fn iter(&self) -> impl Iterator<Item = (Language, &LanguageProfile)> {
        self.profiles.iter().map(|(l, p)| (*l, p))
    }
}

/// The values substituted into a profile's argv templates.
#[derive(Debug, Clone, Default)]
pub struct TemplateVars {
    /// Every source file name (relative to the box).
    pub sources: Vec<String>,
    /// The main source file.
    pub main: String,
    /// The main class (JVM languages).
    pub main_class: String,
    /// Whether the request named the entry point (`entry_point`) rather than leaving it to
    /// the first file or the toolchain.
    pub entry_given: bool,
    /// Extra compiler arguments from the request.
    pub extra: Vec<String>,
    /// The memory limit in MiB, if any.
    pub memory_mb: Option<u64>,
    /// The managed-runtime heap in MiB.
    pub heap_mb: u64,
}

impl TemplateVars {
    /// Expands an argv template: list placeholders become several arguments, others are substituted.
    pub fn expand(&self, template: &[String]) -> Vec<String> {
        let mut out = Vec::with_capacity(template.len() + self.sources.len());
        for arg in template {
            match arg.as_str() {
                "{sources}" => out.extend(self.sources.iter().cloned()),
                "{extra}" => out.extend(self.extra.iter().cloned()),
                _ => out.push(self.substitute(arg)),
            }
        }
        out
    }

    fn substitute(&self, arg: &str) -> String {
        if !arg.contains('{') {
            return arg.to_owned();
        }
        let stem = self
            .main
            .rsplit_once('.')
            .map_or(self.main.as_str(), |(s, _)| s);
        arg.replace("{main_stem}", stem)
            .replace("{main_class}", &self.main_class)
            .replace("{main}", &self.main)
            .replace("{heap_mb}", &self.heap_mb.to_string())
            .replace(
                "{memory_mb}",
                &self
                    .memory_mb
                    .map_or_else(|| "0".to_owned(), |m| m.to_string()),
            )
    }
}

/// The heap a managed runtime gets under a memory limit: room for the runtime's own use is kept.
pub fn heap_mb_for(memory_limit_kb: Option<u64>, default_heap_mb: u64) -> u64 {
    match memory_limit_kb {
        None => default_heap_mb,
        Some(kb) => {
            let mb = kb / 1024;
            if mb > 192 { mb - 64 } else { (mb / 2).max(16) }
        }
    }
}

/// The class name of a JVM source path: `cn/org/vmatrix/Main.java` is `cn.org.vmatrix.Main`.
pub fn class_name_of(path: &str) -> String {
    let stem = path.rsplit_once('.').map_or(path, |(s, _)| s);
    stem.trim_start_matches("./").replace('/', ".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_profiles_parse() {
        let profiles = LanguageProfiles::builtin().unwrap();
        assert!(profiles.get(Language::C).unwrap().is_compiled());
        assert!(!profiles.get(Language::Python3).unwrap().is_compiled());
    }

    #[test]
    fn overrides_replace_single_fields() {
        let overrides: toml::Table = toml::from_str("[c]\nrun = [\"./a.out\"]\n").unwrap();
        let profiles = LanguageProfiles::from_toml(BUILTIN_PROFILES, Some(&overrides)).unwrap();
        let c = profiles.get(Language::C).unwrap();
        assert_eq!(c.run, ["./a.out"]);
        assert_eq!(c.package, "gcc");
    }

    #[test]
    fn unknown_language_is_named_in_the_error() {
        let err =
            LanguageProfiles::from_toml("[cobol]\nrun=[\"x\"]\nversion=[]\npackage=\"x\"\n", None)
                .unwrap_err();
        assert!(err.to_string().contains("languages.cobol"), "{err}");
    }

    #[test]
    fn templates_expand_lists_and_values() {
        let vars = TemplateVars {
            sources: vec!["a.c".into(), "b.c".into()],
            main: "a.c".into(),
            extra: vec!["-DX".into()],
            heap_mb: 100,
            ..TemplateVars::default()
        };
        let t: Vec<String> = [
            "cc",
            "{sources}",
            "{extra}",
            "-Xmx{heap_mb}m",
            "{main_stem}",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            vars.expand(&t),
            ["cc", "a.c", "b.c", "-DX", "-Xmx100m", "a"]
        );
    }

    #[test]
    fn kotlin_runs_the_entry_point_class_when_one_is_named() {
        let profiles = LanguageProfiles::builtin().unwrap();
        let kotlin = profiles.get(Language::Kotlin).unwrap();
        let named = TemplateVars {
            main_class: "SecondKt".into(),
            entry_given: true,
            ..TemplateVars::default()
        };
        let argv = named.expand(kotlin.run_command(&named));
        assert_eq!(argv[argv.len() - 3..], ["-cp", "main.jar", "SecondKt"]);
        let unnamed = TemplateVars {
            main_class: "Main".into(),
            ..TemplateVars::default()
        };
        let argv = unnamed.expand(kotlin.run_command(&unnamed));
        assert_eq!(argv[argv.len() - 2..], ["-jar", "main.jar"]);
        // Languages without a `run_entry` keep their one run command.
        let java = profiles.get(Language::Java).unwrap();
        assert_eq!(java.run_command(&named), java.run.as_slice());
    }

    /// Python ran with `-S`, so `exit()`/`quit()` raised NameError and Debian's
    /// packages were not importable. Programs (submissions, checkers, validators, interactors)
    /// run with the site module, but never with the user site directory, bytecode written into
    /// the box, or `-I` (which drops the script's directory: multi-file programs).
    #[test]
    fn python_runs_with_the_site_module_but_no_user_site_or_bytecode() {
        let profiles = LanguageProfiles::builtin().unwrap();
        for language in [Language::Python3, Language::Python2] {
            let run = &profiles.get(language).unwrap().run;
            let flags = &run[1..run.len() - 1];
            assert_eq!(run.last().map(String::as_str), Some("{main}"));
            for kept in ["-s", "-B"] {
                assert!(flags.iter().any(|f| f == kept), "{language}: {run:?}");
            }
            for dropped in ["-S", "-I"] {
                assert!(!flags.iter().any(|f| f == dropped), "{language}: {run:?}");
            }
        }
    }

    #[test]
    fn class_names_follow_the_package_path() {
        assert_eq!(
            class_name_of("cn/org/vmatrix/Main.java"),
            "cn.org.vmatrix.Main"
        );
        assert_eq!(class_name_of("Main.java"), "Main");
    }

    #[test]
    fn heap_leaves_room_for_the_runtime() {
        assert_eq!(heap_mb_for(Some(256 * 1024), 1024), 192);
        assert_eq!(heap_mb_for(Some(64 * 1024), 1024), 32);
        assert_eq!(heap_mb_for(None, 1024), 1024);
    }
}
