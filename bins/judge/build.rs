//! Links `judge` for a short process start: libgcc's unwinder statically instead of loading
//! `libgcc_s.so.1`, and its relative relocations packed (DT_RELR) where the toolchain and C
//! library here can.
//!
//! A one-shot `judge sandbox` is a whole process start. Loading `libgcc_s.so.1`
//! and running its constructor, which asks the CPU what it supports (`cpuid`, trapped and
//! slow on virtual machines), cost ~0.1 ms of a ~1 ms start here (docs/speed.md, "Third
//! pass"). The Rust standard library names `-lgcc_s` itself on `*-linux-gnu`, so gcc's
//! `-static-libgcc` cannot replace it; a linker script of that name, found first, points the
//! linker at `libgcc_eh.a` (the same unwinder, the archive gcc's static links use). Where that
//! archive is missing (another compiler, a cross build) nothing changes.
//!
//! `judge` is position-independent (ASLR for a process that runs as root), so the loader
//! applies ~12 800 relative relocations at every start, read from a 311 KB `.rela.dyn`;
//! `-z pack-relative-relocs` (binutils 2.38, glibc 2.36) encodes them in 4 KB: 0.07 ms off
//! every `judge` process, 0.1-0.17 ms off a one-shot run (docs/speed.md, "Fourth pass"). It is
//! used only when a probe program linked so runs here (native builds): such a binary needs
//! glibc 2.36 or later where it runs, which the binary built on this host has.

use std::path::PathBuf;

#[path = "build/link_probes.rs"]
mod link_probes;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build/link_probes.rs");
    println!("cargo:rerun-if-env-changed=CC");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let native = var("TARGET") == var("HOST");
    let gnu_linux = var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu";
    let static_crt = var("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|f| f == "crt-static");
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return;
    };
    if !native || !gnu_linux || static_crt {
        return;
    }
    if link_probes::packs_relative_relocs(&cc(), &out) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    if !link_probes::has_libgcc_eh(&cc()) {
        return;
    }
    let dir = out.join("static-libgcc");
    let script = "/* judge links libgcc's unwinder statically (build.rs) */\nINPUT(-lgcc_eh)\n";
    if std::fs::create_dir_all(&dir).is_ok()
        && std::fs::write(dir.join("libgcc_s.so"), script).is_ok()
    {
        println!("cargo:rustc-link-search=native={}", dir.display());
    }
}

/// The C compiler, which is also the linker driver.
fn cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".to_owned())
}
