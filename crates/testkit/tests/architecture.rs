//! docs/architecture.md's dependency map is the record every crate's `Cargo.toml` must match:
//! each line `a, b <- x, y` says that crates `x` and `y` depend on exactly `a` and `b` among
//! verdict's crates ([dependencies], not dev-dependencies). A crate that gains or loses an
//! in-house dependency fails here until the map says so.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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

/// The `.rs` files under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source directories of the workspace's crates and binaries (`crates/x/src`, `bins/x/src`).
fn source_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for group in ["crates", "bins"] {
        let Ok(entries) = std::fs::read_dir(root().join(group)) else {
            continue;
        };
        for entry in entries.flatten() {
            let src = entry.path().join("src");
            if src.is_dir() {
                dirs.push(src);
            }
        }
    }
    dirs.sort();
    dirs
}

/// A file's module path inside its crate: `src/a/b.rs` and `src/a/b/mod.rs` are `["a", "b"]`,
/// `src/lib.rs` and `src/main.rs` the root `[]`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap_or(file).with_extension("");
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main")
        || parts.last().is_some_and(|p| p == "mod")
    {
        parts.pop();
    }
    parts
}

/// A file's code as the compiler sees its imports: comments dropped, and nothing from its unit
/// tests on (`#[cfg(test)]`, where `super::` is the file's own module).
fn code_of(text: &str) -> String {
    let mut code = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        let line = line.split("//").next().unwrap_or_default();
        code.push_str(line);
        code.push('\n');
    }
    code
}

/// Every module path `code` names through `crate::`, `super::` or `self::` (use trees
/// `a::{b, c::d}` expanded), resolved against the file's own module `here`.
fn named_paths(code: &str, here: &[String]) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let rest = &code[at..];
        let start_ok = at == 0
            || !(bytes[at - 1].is_ascii_alphanumeric()
                || bytes[at - 1] == b'_'
                || bytes[at - 1] == b':');
        let base: Option<(usize, Vec<String>)> = if !start_ok {
            None
        } else if rest.starts_with("crate::") {
            Some(("crate::".len(), Vec::new()))
        } else if rest.starts_with("super::") || rest.starts_with("self::") {
            let mut base = here.to_vec();
            let mut skip = 0;
            loop {
                let tail = &rest[skip..];
                if tail.starts_with("super::") {
                    base.pop();
                    skip += "super::".len();
                } else if tail.starts_with("self::") {
                    skip += "self::".len();
                } else {
                    break;
                }
            }
            Some((skip, base))
        } else {
            None
        };
        match base {
            Some((skip, base)) => {
                let (paths, used) = use_tree(&rest[skip..], base);
                found.extend(paths);
                at += skip + used.max(1);
            }
            None => at += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    found
}

/// The paths of one use tree at the start of `text` (after a `crate::`), each prefixed by
/// `base`, and how many bytes it spans.
fn use_tree(text: &str, base: Vec<String>) -> (Vec<Vec<String>>, usize) {
    let mut path = base;
    let mut at = 0;
    loop {
        let ident: String = text[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if ident.is_empty() {
            break;
        }
        at += ident.len();
        path.push(ident);
        if text[at..].starts_with("::") {
            at += 2;
        } else {
            return (vec![path], at);
        }
    }
    let tail = &text[at..];
    if !tail.starts_with('{') {
        return (vec![path], at);
    }
    // A group: `{a, b::{c, d}}`, split at its top-level commas.
    let mut paths = Vec::new();
    let mut depth = 0;
    let mut item_start = at + 1;
    for (i, c) in tail.char_indices() {
        match c {
            '{' => depth += 1,
            '}' | ',' if depth == 1 => {
                let item = text[item_start..at + i].trim_start();
                let lead = text[item_start..at + i].len() - item.len();
                if !item.is_empty() {
                    let (inner, _) = use_tree(&text[item_start + lead..at + i], path.clone());
                    paths.extend(inner);
                }
                item_start = at + i + 1;
                if c == '}' {
                    return (paths, at + i + 1);
                }
            }
            '}' => depth -= 1,
            _ => {}
        }
    }
    (paths, text.len())
}

/// One crate's module graph at file granularity: each file and the files of the modules it
/// names (the longest prefix of a path that is a module file), leaving out its own ancestors
/// and descendants (a parent's re-exports and `mod` lines are not imports between modules).
fn module_graph(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let by_module: BTreeMap<Vec<String>, PathBuf> = files
        .iter()
        .filter(|f| !f.ends_with("main.rs") || !src.join("lib.rs").is_file())
        .map(|f| (module_of(src, f), f.clone()))
        .collect();
    let module_in = |path: &[String]| -> Option<Vec<String>> {
        (1..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|m| by_module.contains_key(m))
    };
    // What the crate root re-exports (`pub use exec::{Executor, ..}`), by name: a path through
    // the root (`crate::Executor`) imports the module that defines it.
    let root_file = by_module.get(&Vec::new()).cloned();
    let root_code = code_of(
        &root_file
            .map(std::fs::read_to_string)
            .and_then(Result::ok)
            .unwrap_or_default(),
    );
    let mut reexports: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (at, _) in root_code.match_indices("pub use ") {
        let tree = &root_code[at + "pub use ".len()..];
        let tree = tree.strip_prefix("crate::").unwrap_or(tree);
        for path in use_tree(tree, Vec::new()).0 {
            if let (Some(name), Some(module)) = (path.last(), module_in(&path)) {
                reexports.insert(name.clone(), module);
            }
        }
    }
    let mut graph = BTreeMap::new();
    for file in &files {
        let here = module_of(src, file);
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let mut targets = BTreeSet::new();
        for path in named_paths(&code_of(&text), &here) {
            let module = match module_in(&path) {
                Some(module) => module,
                None => match path.first().and_then(|name| reexports.get(name)) {
                    Some(module) => module.clone(),
                    None => continue,
                },
            };
            let module = module.as_slice();
            if module.starts_with(&here) || here.starts_with(module) {
                continue;
            }
            targets.insert(by_module[module].clone());
        }
        graph.insert(file.clone(), targets);
    }
    graph
}

/// The strongly connected components of more than one file (Tarjan's algorithm): each a circle
/// of imports.
fn circles(graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'a PathBuf, usize>,
        low: BTreeMap<&'a PathBuf, usize>,
        stack: Vec<&'a PathBuf>,
        on_stack: BTreeSet<&'a PathBuf>,
        found: Vec<Vec<PathBuf>>,
    }
    fn visit<'a>(walk: &mut Walk<'a>, node: &'a PathBuf) {
        let n = walk.index.len();
        walk.index.insert(node, n);
        walk.low.insert(node, n);
        walk.stack.push(node);
        walk.on_stack.insert(node);
        for next in walk.graph.get(node).into_iter().flatten() {
            if !walk.index.contains_key(next) {
                visit(walk, next);
                let low = walk.low[node].min(walk.low[next]);
                walk.low.insert(node, low);
            } else if walk.on_stack.contains(next) {
                let low = walk.low[node].min(walk.index[next]);
                walk.low.insert(node, low);
            }
        }
        if walk.low[node] == walk.index[node] {
            let mut component = Vec::new();
            while let Some(top) = walk.stack.pop() {
                walk.on_stack.remove(top);
                component.push(top.clone());
                if top == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                walk.found.push(component);
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !walk.index.contains_key(node) {
            visit(&mut walk, node);
        }
    }
    walk.found
}

fn shown(files: &[PathBuf]) -> String {
    files
        .iter()
        .map(|f| f.strip_prefix(root()).unwrap_or(f).display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Import circles allowed for now, each by its files: empty, and it may only stay so (a circle
/// listed here that is gone fails the test until it is taken off; a new one fails it at once).
/// docs/architecture.md, "Invariants that are tested".
const KNOWN_CIRCLES: &[&[&str]] = &[];

#[test]
fn imports_between_a_crates_modules_go_one_way() {
    let mut found = Vec::new();
    let mut known_seen = BTreeSet::new();
    for src in source_dirs() {
        let graph = module_graph(&src);
        for circle in circles(&graph) {
            let names: Vec<String> = circle
                .iter()
                .map(|f| f.strip_prefix(root()).unwrap_or(f).display().to_string())
                .collect();
            if let Some(known) = KNOWN_CIRCLES.iter().position(|k| *k == names) {
                known_seen.insert(known);
                continue;
            }
            let mut lines = vec![shown(&circle)];
            for file in &circle {
                let inside: Vec<PathBuf> = graph[file]
                    .iter()
                    .filter(|t| circle.contains(t))
                    .cloned()
                    .collect();
                lines.push(format!(
                    "  {} -> {}",
                    shown(std::slice::from_ref(file)),
                    shown(&inside)
                ));
            }
            found.push(lines.join("\n"));
        }
    }
    assert!(
        found.is_empty(),
        "import circles (move what both sides share down, docs/architecture.md):\n{}",
        found.join("\n")
    );
    let gone: Vec<_> = (0..KNOWN_CIRCLES.len())
        .filter(|i| !known_seen.contains(i))
        .map(|i| KNOWN_CIRCLES[i])
        .collect();
    assert!(
        gone.is_empty(),
        "known circles that are broken or changed: take them off KNOWN_CIRCLES: {gone:?}"
    );
}

#[test]
fn an_import_circle_is_found_and_named_by_its_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = dir.path();
    std::fs::create_dir_all(src.join("a")).expect("a/");
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\npub use b::B;\n").expect("lib.rs");
    // `crate::B` is `b::B`, re-exported by the root.
    std::fs::write(src.join("a/mod.rs"), "mod inner;\nuse crate::{B, c};\n").expect("a");
    std::fs::write(src.join("a/inner.rs"), "use super::super::a;\n").expect("inner");
    std::fs::write(
        src.join("b.rs"),
        "pub struct B;\nfn f() { crate::a::g(); }\n",
    )
    .expect("b");
    std::fs::write(
        src.join("c.rs"),
        "// crate::b::B is named in a comment only\n#[cfg(test)]\nmod tests { use crate::b; }\n",
    )
    .expect("c");
    let graph = module_graph(src);
    assert_eq!(
        circles(&graph),
        vec![vec![src.join("a/mod.rs"), src.join("b.rs")]]
    );
    assert!(graph[&src.join("c.rs")].is_empty(), "{graph:?}");
    assert!(
        graph[&src.join("a/inner.rs")].is_empty(),
        "an ancestor is no import"
    );
}

#[test]
fn judge_server_handlers_never_import_the_route_table() {
    let src = root().join("bins/judge-server/src");
    let graph = module_graph(&src);
    let table = src.join("routes.rs");
    // A handler reaches the table when any chain of imports from it ends there.
    let reaches_table = |from: &PathBuf| -> Option<Vec<PathBuf>> {
        let mut came_from: BTreeMap<&PathBuf, &PathBuf> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([from]);
        while let Some(file) = queue.pop_front() {
            for next in graph.get(file).into_iter().flatten() {
                if next == &table {
                    let mut chain = vec![table.clone(), file.clone()];
                    let mut at = file;
                    while let Some(before) = came_from.get(at) {
                        chain.push((*before).clone());
                        at = before;
                    }
                    chain.reverse();
                    return Some(chain);
                }
                if next != from && !came_from.contains_key(next) {
                    came_from.insert(next, file);
                    queue.push_back(next);
                }
            }
        }
        None
    };
    let found: Vec<String> = graph[&table]
        .iter()
        .filter_map(reaches_table)
        .map(|chain| {
            chain
                .iter()
                .map(|f| f.strip_prefix(&src).unwrap_or(f).display().to_string())
                .collect::<Vec<_>>()
                .join(" -> ")
        })
        .collect();
    assert!(
        found.is_empty(),
        "handlers the route table names lead back to it (give them what they need as state or \
         an extension; move what they share with start-up down):\n{}",
        found.join("\n")
    );
}

/// The files that may name the sandbox above the scheduler: the binaries' start-up, which makes
/// the sandbox and hands it in, and the commands that are about the sandbox itself.
const SANDBOX_START_UP: &[&str] = &[
    "bins/judge/src/main.rs",
    "bins/judge/src/cmd/sandbox.rs",
    "bins/judge/src/cmd/doctor.rs",
    "bins/judge/src/cmd/oracle.rs",
    "bins/judge/tests/it/rootless.rs",
    "bins/judge/benches/oneshot.rs",
    "bins/judge/benches/speed/main.rs",
    "bins/judge-server/src/main.rs",
];

#[test]
fn nothing_above_the_scheduler_names_the_sandbox_but_start_up() {
    let mut dirs = vec![root().join("bins/judge"), root().join("bins/judge-server")];
    for name in std::fs::read_dir(root().join("crates"))
        .expect("crates/")
        .flatten()
        .filter(|e| e.path().join("Cargo.toml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
    {
        if dependencies(&name).contains("scheduler") {
            dirs.push(root().join("crates").join(name));
        }
    }
    assert!(dirs.len() > 3, "the crates above the scheduler: {dirs:?}");
    let mut found = Vec::new();
    for dir in dirs {
        let mut files = Vec::new();
        for part in ["src", "tests", "benches"] {
            rust_files(&dir.join(part), &mut files);
        }
        for file in files {
            let relative = file
                .strip_prefix(root())
                .unwrap_or(&file)
                .display()
                .to_string();
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            // This file names the crate to look for it.
            let this_test = file.ends_with("testkit/tests/architecture.rs");
            if text.contains("verdict_sandbox")
                && !this_test
                && !SANDBOX_START_UP.contains(&relative.as_str())
            {
                found.push(relative);
            }
        }
    }
    assert!(
        found.is_empty(),
        "above the scheduler, run programs through the execution seam \
         (verdict_scripts::Executor, docs/architecture.md), not the sandbox: {found:?}"
    );
}
