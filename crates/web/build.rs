//! Embeds the repository's example submissions (`examples/judge/*.json`) so that the page can
//! offer them: one `(name, text)` per file, sorted by name.

use std::fmt::Write;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let dir = manifest.join("../../examples/judge");
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut out = String::from(
        "/// The bundled example submissions: (name, JSON text).\npub static EXAMPLES: &[(&str, &str)] = &[\n",
    );
    for path in &names {
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let Ok(absolute) = path.canonicalize() else {
            continue;
        };
        let _ = writeln!(
            out,
            "    ({stem:?}, include_str!({:?})),",
            absolute.display().to_string()
        );
    }
    out.push_str("];\n");
    let target = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default()).join("examples.rs");
    if let Err(err) = std::fs::write(&target, out) {
        panic!("cannot write {}: {err}", target.display());
    }
}
