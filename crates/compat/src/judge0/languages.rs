//! Judge0 CE's language ids (its `db/languages/active.rb`, v1.13.1) for the languages verdict
//! runs: this table only names verdict's languages Judge0's way. What is listed comes from
//! verdict's one language list, filtered by the toolchains installed here
//! ([`crate::toolchains`]); the names carry the installed versions (docs/compat.md).

use crate::toolchains::Installed;
use serde::Serialize;
use verdict_contracts::Language;
use verdict_scripts::LanguageProfiles;

/// Judge0's ids of a verdict language, with Judge0's name (`{}` is the installed version)
/// and Judge0's source file. Several of Judge0's ids stand for one toolchain version each
/// (GCC 7.4.0, 8.3.0, 9.2.0); here each runs the one installed compiler, and clients that
/// pin an id (the `judge0` SDK sends 52 for C++, 50 for C) keep working.
const IDS: &[(u16, Language, &str, &str)] = &[
    (46, Language::Bash, "Bash ({})", "script.sh"),
    (48, Language::C, "C (GCC {})", "main.c"),
    (49, Language::C, "C (GCC {})", "main.c"),
    (50, Language::C, "C (GCC {})", "main.c"),
    (51, Language::Csharp, "C# (Mono {})", "Main.cs"),
    (52, Language::Cpp, "C++ (GCC {})", "main.cpp"),
    (53, Language::Cpp, "C++ (GCC {})", "main.cpp"),
    (54, Language::Cpp, "C++ (GCC {})", "main.cpp"),
    (59, Language::Fortran95, "Fortran (GFortran {})", "main.f90"),
    (60, Language::Go, "Go ({})", "main.go"),
    (61, Language::Haskell, "Haskell (GHC {})", "main.hs"),
    (62, Language::Java, "Java (OpenJDK {})", "Main.java"),
    (63, Language::Js, "JavaScript (Node.js {})", "script.js"),
    (64, Language::Lua, "Lua ({})", "script.lua"),
    (66, Language::Octave, "Octave ({})", "script.m"),
    (67, Language::Pas, "Pascal (FPC {})", "main.pas"),
    (68, Language::Php, "PHP ({})", "script.php"),
    (70, Language::Python2, "Python ({})", "script.py"),
    (71, Language::Python3, "Python ({})", "script.py"),
    (72, Language::Ruby, "Ruby ({})", "script.rb"),
    (73, Language::Rust, "Rust ({})", "main.rs"),
    (74, Language::Typescript, "TypeScript ({})", "script.ts"),
    (78, Language::Kotlin, "Kotlin ({})", "Main.kt"),
    (80, Language::R, "R ({})", "script.r"),
    (81, Language::Scala, "Scala ({})", "Main.scala"),
    (83, Language::Swift, "Swift ({})", "Main.swift"),
    (84, Language::Vbnet, "Visual Basic.Net (vbnc {})", "Main.vb"),
    (85, Language::Perl, "Perl ({})", "script.pl"),
    (87, Language::Fsharp, "F# (.NET Core SDK {})", "script.fsx"),
];

/// One language as Judge0 describes it (`GET /languages/{id}`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judge0Language {
    /// Judge0's id.
    pub id: u16,
    /// Judge0's name with the installed version (`C++ (GCC 12.2.0)`).
    pub name: String,
    /// Always `false`: only what runs here is listed.
    pub is_archived: bool,
    /// Judge0's source file name.
    pub source_file: String,
    /// verdict's compile command (its profile's), `null` for an interpreted language.
    pub compile_cmd: Option<String>,
    /// verdict's run command (its profile's).
    pub run_cmd: String,
    /// The verdict language it runs as (not sent).
    #[serde(skip)]
    pub verdict: Language,
}

impl Judge0Language {
    /// Whether the language has a compile step (compiler options are allowed).
    pub fn is_compiled(&self) -> bool {
        self.compile_cmd.is_some()
    }
}

/// The Judge0 ids of the installed languages, in id order.
pub fn languages(installed: &[Installed], profiles: &LanguageProfiles) -> Vec<Judge0Language> {
    IDS.iter()
        .filter_map(|(id, language, name, source_file)| {
            let found = installed.iter().find(|i| i.language == *language)?;
            let profile = profiles.get(*language)?;
            Some(Judge0Language {
                id: *id,
                name: name.replace("{}", &found.version),
                is_archived: false,
                source_file: source_file.to_string(),
                compile_cmd: profile
                    .compile
                    .as_ref()
                    .filter(|_| profile.is_compiled())
                    .map(|argv| argv.join(" ")),
                run_cmd: profile.run.join(" "),
                verdict: *language,
            })
        })
        .collect()
}

/// The Judge0 ids verdict has a language for, installed or not (for the docs' table).
pub fn known_ids() -> impl Iterator<Item = (u16, Language)> {
    IDS.iter().map(|(id, language, _, _)| (*id, *language))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judge0_ids_name_installed_languages_with_their_versions() {
        let profiles = LanguageProfiles::builtin().expect("profiles");
        let installed = [
            Installed::from_banner(Language::Python3, "Python 3.11.2"),
            Installed::from_banner(Language::Cpp, "12.2.0"),
        ];
        let list = languages(&installed, &profiles);
        let ids: Vec<u16> = list.iter().map(|l| l.id).collect();
        assert_eq!(ids, [52, 53, 54, 71]);
        assert_eq!(list[2].name, "C++ (GCC 12.2.0)");
        assert!(list[2].is_compiled());
        assert_eq!(list[3].name, "Python (3.11.2)");
        assert!(!list[3].is_compiled());
        assert_eq!(list[3].source_file, "script.py");
    }

    #[test]
    fn every_language_with_a_judge0_id_is_in_verdicts_list_once_per_id() {
        let mut ids: Vec<u16> = known_ids().map(|(id, _)| id).collect();
        let count = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), count, "ids are sorted and unique");
    }
}
