//! docs/architecture.md's dependency map is the record every crate's `Cargo.toml` must match:
//! each line `a, b <- x, y` says that crates `x` and `y` depend on exactly `a` and `b` among
//! verdict's crates ([dependencies], not dev-dependencies). A crate that gains or loses an
//! in-house dependency fails here until the map says so.

use std::collections::BTreeSet;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The in-house crates `crates/<name>/Cargo.toml` depends on, by short name.
fn dependencies(name: &str) -> BTreeSet<String> {
    let path = root().join("crates").join(name).join("Cargo.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut in_dependencies = false;
    let mut found = BTreeSet::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
            continue;
        }
        if in_dependencies && let Some(rest) = line.strip_prefix("verdict-") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            found.insert(name);
        }
    }
    found
}

#[test]
fn every_crates_in_house_dependencies_are_those_docs_architecture_md_names() {
    let doc =
        std::fs::read_to_string(root().join("docs/architecture.md")).expect("architecture.md");
    // The map is the code block after "Dependencies point one way".
    let after = doc
        .split_once("Dependencies point one way")
        .map(|(_, rest)| rest)
        .expect("the map's heading");
    let block = after.split("```").nth(1).expect("the map's code block");
    let mut checked = BTreeSet::new();
    for line in block.lines() {
        let Some((lhs, rhs)) = line.split_once(" <- ") else {
            continue;
        };
        if lhs.contains("only") {
            continue;
        }
        let expected: BTreeSet<String> = lhs.split(',').map(|s| s.trim().to_string()).collect();
        let rhs = rhs.split('(').next().unwrap_or_default();
        for name in rhs.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            assert_eq!(
                dependencies(name),
                expected,
                "crates/{name}/Cargo.toml against docs/architecture.md's line `{line}`"
            );
            checked.insert(name.to_string());
        }
    }
    // The leaves: crates that depend on nothing in-house.
    for leaf in ["contracts", "sandbox", "fetch", "web"] {
        assert!(dependencies(leaf).is_empty(), "{leaf} is a leaf");
        checked.insert(leaf.to_string());
    }
    let crates: BTreeSet<String> = std::fs::read_dir(root().join("crates"))
        .expect("crates/")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("Cargo.toml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let unmapped: Vec<&String> = crates
        .iter()
        .filter(|c| !checked.contains(*c) && c.as_str() != "fuzz")
        .collect();
    assert!(
        unmapped.is_empty(),
        "crates the map does not place: {unmapped:?}"
    );
}

/// The text files of the repository that people read: sources, scripts, documents.
fn readable_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || ["target", "node_modules", "__pycache__"].contains(&&*name) {
            continue;
        }
        if path.is_dir() {
            readable_files(&path, out);
        } else if ["rs", "md", "py", "sh", "toml", "ts", "js", "html", "css"]
            .iter()
            .any(|ext| path.extension().is_some_and(|e| e == *ext))
        {
            out.push(path);
        }
    }
}

/// "issue 29.11", "issues 27 and 39": a number of a tracker nothing in the repository defines.
fn cites_an_issue_number(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    lower.match_indices("issue").any(|(at, _)| {
        let rest = lower[at + "issue".len()..].trim_start_matches('s');
        let rest = rest.strip_prefix(' ').unwrap_or("");
        let rest = rest.strip_prefix('#').unwrap_or(rest);
        rest.starts_with(|c: char| c.is_ascii_digit())
    })
}

#[test]
fn no_file_cites_an_issue_number_in_place_of_a_reason() {
    let mut files = Vec::new();
    for dir in ["crates", "bins", "docs", "scripts", "clients", "examples"] {
        readable_files(&root().join(dir), &mut files);
    }
    files.push(root().join("README.md"));
    let mut found = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            // This test's own examples name the pattern.
            if cites_an_issue_number(line) && !file.ends_with("architecture.rs") {
                found.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "say why (or point to docs/), not an issue number:\n{}",
        found.join("\n")
    );
}

#[test]
fn an_issue_number_is_told_from_other_uses_of_the_word() {
    assert!(cites_an_issue_number("as asked (issue 29.11)"));
    assert!(cites_an_issue_number("issues 27 and 39"));
    assert!(cites_an_issue_number("see issue #12"));
    assert!(!cites_an_issue_number(
        "the issue is that 3 processes remain"
    ));
    assert!(!cites_an_issue_number("issues a warning"));
}
