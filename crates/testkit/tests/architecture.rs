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
