//! Programs of a package (submissions, validators): a file, or a directory of files, as a
//! `Program` with its language told by the extensions.

use std::path::Path;
use verdict_contracts::{Asset, Language, Program, SourceCode};

/// How the Kattis format names `language`: its source files' extensions (lower case) and its
/// code in the format's language table (`None`: the format has no such language; its
/// `include/` directory is then looked up by verdict's name). The one list of these names, an
/// exhaustive match: a new language does not compile until it is placed here
/// (docs/architecture.md, "Add a language").
fn kattis_names(language: Language) -> (&'static [&'static str], Option<&'static str>) {
    match language {
        Language::Ada => (&[], Some("ada")),
        Language::Bash => (&[], Some("bash")),
        Language::C => (&["c"], Some("c")),
        Language::Cpp => (&["cc", "cpp", "cxx", "c++", "cp"], Some("cpp")),
        Language::Csharp => (&["cs"], Some("csharp")),
        Language::Fortran95 => (&["f90", "f95"], Some("fortran")),
        Language::Fsharp => (&[], Some("fsharp")),
        Language::Go => (&["go"], Some("go")),
        Language::Haskell => (&["hs"], Some("haskell")),
        Language::Java => (&["java"], Some("java")),
        Language::Js => (&["js"], Some("javascript")),
        Language::Kotlin => (&["kt"], Some("kotlin")),
        Language::Lua => (&["lua"], Some("lua")),
        Language::Pas => (&["pas"], Some("pascal")),
        // `.pl` is Prolog's too: a file with `:-` is not taken for Perl (`language_of`).
        Language::Perl => (&["pl"], Some("perl")),
        Language::Php => (&["php"], Some("php")),
        // `.py` is Python 3 unless its first line names python2 (`language_of`).
        Language::Python2 => (&[], Some("python2")),
        Language::Python3 => (&["py", "py3"], Some("python3")),
        Language::Ruby => (&["rb"], Some("ruby")),
        Language::Rust => (&["rs"], Some("rust")),
        Language::Scala => (&["scala"], Some("scala")),
        Language::Swift => (&["swift"], Some("swift")),
        // Not in problemtools' table; `.m` is Objective-C's there, `.ts` nothing.
        Language::Awk
        | Language::Make
        | Language::Octave
        | Language::R
        | Language::Typescript
        | Language::Vbnet => (&[], None),
    }
}

/// The language of a source file by its extension (and, for Python, its first line).
pub(crate) fn language_of(path: &Path, text: &str) -> Option<Language> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    let language = Language::ALL
        .iter()
        .copied()
        .find(|&l| kattis_names(l).0.contains(&ext.as_str()))?;
    Some(match language {
        Language::Python3 if ext == "py" && is_python2(text) => Language::Python2,
        Language::Perl if text.contains(":-") => return None,
        other => other,
    })
}

/// Whether a `.py` file's first line names python2 (`#!/usr/bin/env python2`).
fn is_python2(text: &str) -> bool {
    text.lines().next().is_some_and(|l| l.contains("python2"))
}

/// Whether a file is a header or helper rather than a source (`.h`, `.hpp`).
fn is_header(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("h" | "hpp" | "hh")
    )
}

/// Reads `path` (a file or a directory) as a program; `extra` are files added beside its own
/// (the package's `include/<language>/`). `Err` says why it cannot be judged here.
pub(crate) fn program(
    path: &Path,
    extra: &dyn Fn(Language) -> Vec<Asset>,
) -> Result<Program, String> {
    program_of(path, files_of(path)?, extra)
}

/// The Makefile a program with `build` / `run` scripts is built by: `build` run (when
/// present), then `run` made executable (the `make` language's build must leave `run`, which
/// it then runs with the program's arguments). The files placed in the build directory are
/// not the build's to change, so each script is copied before it is made executable.
const BUILD_RUN_MAKEFILE: &str = "# verdict: a program with the package format's build / run scripts\n\
.PHONY: verdict-build\n\
verdict-build:\n\
\t@if [ -f build ]; then cp build .verdict-build && chmod +x .verdict-build && ./.verdict-build; fi\n\
\t@cp run .verdict-run && rm -f run && mv .verdict-run run && chmod +x run\n";

/// Its name: the contract's for the first source of a `make` program.
const BUILD_RUN_MAKEFILE_NAME: &str = "Makefile";

/// Reads `path` as a validator or another of the package's own programs: a directory with the
/// format's POSIX `build` and / or `run` scripts (2025-09 "Programs": `build` is run, then
/// `run` runs the program) is a `make` program whose Makefile runs `build` and whose `run` is
/// the package's; anything else is read as [`program`] reads it.
pub(crate) fn package_program(
    path: &Path,
    extra: &dyn Fn(Language) -> Vec<Asset>,
) -> Result<Program, String> {
    let scripted = path.is_dir() && (path.join("build").is_file() || path.join("run").is_file());
    if !scripted {
        return program(path, extra);
    }
    let files = files_of(path)?;
    if files
        .iter()
        .any(|(name, _)| name == BUILD_RUN_MAKEFILE_NAME)
    {
        return Err(format!(
            "{}: build / run scripts beside a Makefile of their own (verdict builds such a \
             program with a Makefile of its own, which a make program must have first)",
            path.display()
        ));
    }
    Ok(Program::SourceCode(SourceCode {
        language: Language::Make,
        entry_point: None,
        source_files: vec![Asset::text(BUILD_RUN_MAKEFILE_NAME, BUILD_RUN_MAKEFILE)],
        assist_files: files
            .into_iter()
            .map(|(name, text)| Asset::text(name, text))
            .collect(),
        compile_command: None,
    }))
}

/// Every regular file under `path` (or `path` itself) as (name under it, text), by name.
fn files_of(path: &Path) -> Result<Vec<(String, String)>, String> {
    let mut files = Vec::new();
    collect(path, path, &mut files).map_err(|e| format!("{}: {e}", path.display()))?;
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}

/// [`program`] of the files read from `path`.
fn program_of(
    path: &Path,
    files: Vec<(String, String)>,
    extra: &dyn Fn(Language) -> Vec<Asset>,
) -> Result<Program, String> {
    let mut language = None;
    let mut sources = Vec::new();
    let mut assists = Vec::new();
    for (name, text) in files {
        let p = Path::new(&name);
        match (is_header(p), language_of(p, &text)) {
            (false, Some(l)) if language.is_none_or(|x| x == l) => {
                language = Some(l);
                sources.push(Asset::text(name, text));
            }
            (false, Some(l)) => {
                return Err(format!(
                    "{}: sources in two languages ({:?} and {:?})",
                    path.display(),
                    language.map(Language::as_str),
                    l.as_str()
                ));
            }
            _ => assists.push(Asset::text(name, text)),
        }
    }
    let language = language
        .ok_or_else(|| format!("{}: no source in a language verdict judges", path.display()))?;
    // The entry point: `main.*` (Python's `__main__.py`, the format's default) when present,
    // else the first source.
    if let Some(i) = sources.iter().position(|a| {
        Path::new(&a.name)
            .file_stem()
            .is_some_and(|s| s == "main" || s == "Main" || s == "__main__")
    }) {
        let main = sources.remove(i);
        sources.insert(0, main);
    }
    // Java's class is its file's name (problemtools runs `{mainclass}`, the file stem). A
    // Kotlin file's class is not (`hello.kt` holds `HelloKt`), nor a Scala file's object: their
    // profiles find it (the jar's manifest, the object with a `main`), as for a Submission.
    let entry_point = match language {
        Language::Java => Path::new(&sources[0].name)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned()),
        _ => None,
    };
    add_included(&mut sources, &mut assists, extra(language));
    Ok(Program::SourceCode(SourceCode {
        language,
        entry_point,
        source_files: sources,
        assist_files: assists,
        compile_command: None,
    }))
}

/// The reference at `path` as `submissions.yaml` sets it (`program`: as read from its files):
/// `language` (a code of the format's language table) makes every file that is not a header or
/// a source of another language one of its sources, whatever its extension (`extra`: the
/// package's `include/<language>/` beside them); `entrypoint` names the main class (Java,
/// Kotlin, Scala) or main file (Python, JavaScript). A language verdict does not judge is
/// `Err`, so the reference is skipped, never judged in a language it was not written for.
pub(crate) fn as_configured(
    path: &Path,
    extra: &dyn Fn(Language) -> Vec<Asset>,
    program: Result<Program, String>,
    language: Option<&str>,
    entrypoint: Option<&str>,
) -> Result<Program, String> {
    let mut program = match language {
        None => program?,
        Some(code) => {
            let language = language_of_code(code)
                .or_else(|| Language::from_name(code))
                .ok_or_else(|| format!("language {code:?}: not a language verdict judges"))?;
            let (mut sources, mut assists) = (Vec::new(), Vec::new());
            for (name, text) in files_of(path)? {
                let p = Path::new(&name);
                let other = language_of(p, &text).is_some_and(|l| l != language);
                if is_header(p) || other {
                    assists.push(Asset::text(name, text));
                } else {
                    sources.push(Asset::text(name, text));
                }
            }
            if sources.is_empty() {
                return Err(format!("language {code:?}: no source file for it"));
            }
            add_included(&mut sources, &mut assists, extra(language));
            Program::SourceCode(SourceCode {
                language,
                entry_point: None,
                source_files: sources,
                assist_files: assists,
                compile_command: None,
            })
        }
    };
    if let Some(entry) = entrypoint {
        let Program::SourceCode(source) = &mut program;
        source.entry_point = Some(entry.to_owned());
    }
    Ok(program)
}

/// Adds the package's included files (`include/`) to a program's files: a file of the same name
/// is overwritten, as the format says.
fn add_included(sources: &mut [Asset], assists: &mut Vec<Asset>, included: Vec<Asset>) {
    for asset in included {
        match sources
            .iter_mut()
            .chain(assists.iter_mut())
            .find(|a| a.name == asset.name)
        {
            Some(same) => *same = asset,
            None => assists.push(asset),
        }
    }
}

/// The code of the format's language table for `language` (`include/<code>/`).
pub(crate) fn format_code(language: Language) -> &'static str {
    kattis_names(language).1.unwrap_or(language.as_str())
}

/// The language a code of the format's language table names, if verdict judges it.
fn language_of_code(code: &str) -> Option<Language> {
    Language::ALL
        .iter()
        .copied()
        .find(|&l| kattis_names(l).1 == Some(code))
}

/// Reads `path` as a submit-answer problem's submission: a program when it holds a source in
/// a language verdict judges (the program is judged as on any problem, its outputs the
/// answers, as the format's own example problem's references are), else its files as the
/// answers ([`is_answers`]), each named by its path under `path` (`secret/1.out`).
pub(crate) fn program_or_answers(
    path: &Path,
    extra: &dyn Fn(Language) -> Vec<Asset>,
) -> Result<Program, String> {
    let files = files_of(path)?;
    if files.iter().any(|(name, text)| {
        !is_header(Path::new(name)) && language_of(Path::new(name), text).is_some()
    }) {
        return program_of(path, files, extra);
    }
    Ok(Program::SourceCode(SourceCode {
        language: ANSWERS_LANGUAGE,
        entry_point: None,
        source_files: files
            .into_iter()
            .map(|(name, text)| Asset::text(name, text))
            .collect(),
        assist_files: Vec::new(),
        compile_command: None,
    }))
}

/// The `language` of an answer set on the wire (the contract requires one; answer tests run
/// nothing, so it is never used).
const ANSWERS_LANGUAGE: Language = Language::Bash;

/// Whether `program` is a set of answer files (read by [`program_or_answers`]): none of its
/// sources is in a language verdict judges.
pub(crate) fn is_answers(program: &Program) -> bool {
    program
        .source()
        .source_files
        .iter()
        .all(|a| language_of(Path::new(&a.name), a.text.as_deref().unwrap_or("")).is_none())
}

/// The text after DOMjudge's `@EXPECTED_RESULTS@:` in the reference at `path` (a file, or
/// any file of a directory, in name order), up to the end of its line: `None` without one (or
/// when the reference cannot be read: reading it as a program says why).
pub(crate) fn expected_results_line(path: &Path) -> Option<String> {
    const TAG: &str = "@EXPECTED_RESULTS@:";
    let files = files_of(path).ok()?;
    files.iter().find_map(|(_, text)| {
        let at = text.find(TAG)?;
        let rest = &text[at + TAG.len()..];
        Some(rest.lines().next().unwrap_or_default().to_owned())
    })
}

/// Every regular file under `dir` (or `dir` itself), as (name relative to `root`, text).
fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) -> std::io::Result<()> {
    let meta = std::fs::metadata(dir)?;
    if meta.is_file() {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = String::from_utf8(std::fs::read(dir)?)
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))?;
        out.push((name, text));
        return Ok(());
    }
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        // A link to nothing (a header linked from outside the package) is named, with where it
        // points.
        let meta = std::fs::metadata(&path).map_err(|e| {
            let name = path.strip_prefix(root).unwrap_or(&path).display();
            let why = match std::fs::read_link(&path) {
                Ok(target) => format!(
                    "{name} is a symbolic link to {}, which is not there (a file outside the package?)",
                    target.display()
                ),
                Err(_) => format!("{name}: {e}"),
            };
            std::io::Error::new(e.kind(), why)
        })?;
        if meta.is_dir() {
            collect(root, &path, out)?;
        } else {
            let name = path
                .strip_prefix(root)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default();
            let text = String::from_utf8(std::fs::read(&path)?).map_err(|_| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{}: not UTF-8 text", path.display()),
                )
            })?;
            out.push((name, text));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry_point_of(name: &str, text: &str) -> Option<String> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        match program(&path, &|_| Vec::new()) {
            Ok(Program::SourceCode(source)) => source.entry_point,
            other => panic!("{name}: {other:?}"),
        }
    }

    #[test]
    fn a_kotlin_or_scala_reference_leaves_its_class_to_the_profile_and_java_names_its_file() {
        assert_eq!(
            entry_point_of("hello.kt", "fun main() { println(1) }\n"),
            None
        );
        assert_eq!(
            entry_point_of(
                "hello.scala",
                "object Main { def main(a: Array[String]) = println(1) }\n"
            ),
            None
        );
        assert_eq!(
            entry_point_of(
                "Hello.java",
                "public class Hello { public static void main(String[] a) {} }\n"
            ),
            Some("Hello".into())
        );
    }

    #[test]
    fn every_languages_kattis_names_are_its_own_and_read_back() {
        let mut extensions = std::collections::BTreeMap::new();
        for language in Language::ALL {
            let (exts, code) = kattis_names(language);
            for ext in exts {
                let file = format!("main.{ext}");
                assert_eq!(language_of(Path::new(&file), ""), Some(language), "{file}");
                let earlier = extensions.insert(*ext, language);
                assert_eq!(earlier, None, ".{ext} names two languages");
            }
            if let Some(code) = code {
                assert_eq!(language_of_code(code), Some(language), "{code}");
                assert_eq!(format_code(language), code);
            } else {
                assert_eq!(format_code(language), language.as_str());
            }
        }
        assert_eq!(
            language_of(Path::new("a.py"), "#!/usr/bin/env python2\n"),
            Some(Language::Python2)
        );
        assert_eq!(language_of(Path::new("a.pl"), "main :- true.\n"), None);
    }

    #[test]
    fn a_php_file_is_a_php_program_by_extension_and_by_the_formats_code() {
        assert_eq!(
            language_of(Path::new("accepted/sol.php"), "<?php echo 1;"),
            Some(Language::Php)
        );
        assert_eq!(
            language_of_code(format_code(Language::Php)),
            Some(Language::Php)
        );
    }
}
