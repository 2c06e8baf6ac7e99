//! Links libgcc's unwinder into `judge` statically instead of loading `libgcc_s.so.1`.
//!
//! A one-shot `judge sandbox` is a whole process start (issue 16). Loading `libgcc_s.so.1`
//! and running its constructor, which asks the CPU what it supports (`cpuid`, trapped and
//! slow on virtual machines), cost ~0.1 ms of a ~1 ms start here (docs/speed.md, "Third
//! pass"). The Rust standard library names `-lgcc_s` itself on `*-linux-gnu`, so gcc's
//! `-static-libgcc` cannot replace it; a linker script of that name, found first, points the
//! linker at `libgcc_eh.a` (the same unwinder, the archive gcc's static links use). Where that
//! archive is missing (another compiler, a cross build) nothing changes.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CC");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let native = var("TARGET") == var("HOST");
    let gnu_linux = var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu";
    let static_crt = var("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|f| f == "crt-static");
    if !native || !gnu_linux || static_crt || !has_libgcc_eh() {
        return;
    }
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return;
    };
    let dir = out.join("static-libgcc");
    let script = "/* judge links libgcc's unwinder statically (build.rs) */\nINPUT(-lgcc_eh)\n";
    if std::fs::create_dir_all(&dir).is_ok()
        && std::fs::write(dir.join("libgcc_s.so"), script).is_ok()
    {
        println!("cargo:rustc-link-search=native={}", dir.display());
    }
}

/// Whether the C compiler (the linker driver) has `libgcc_eh.a`.
fn has_libgcc_eh() -> bool {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    Command::new(cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
        .is_some_and(|path| path.is_absolute() && path.is_file())
}
