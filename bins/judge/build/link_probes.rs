//! What the C toolchain here offers `judge`'s link, asked by `build.rs` (which links `judge`
//! accordingly) and by the linking test (which checks, on its own, that `judge` was linked so
//! wherever these say it can be).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether the C compiler `cc` (the linker driver) has `libgcc_eh.a`, libgcc's unwinder as an
/// archive.
pub fn has_libgcc_eh(cc: &str) -> bool {
    Command::new(cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
        .is_some_and(|path| path.is_absolute() && path.is_file())
}

/// Whether a PIE with a relative relocation, linked by `cc` with `-z pack-relative-relocs`
/// (binutils 2.38, glibc 2.36 or later) in `dir`, links and runs here.
pub fn packs_relative_relocs(cc: &str, dir: &Path) -> bool {
    let source = dir.join("relr-probe.c");
    let program = dir.join("relr-probe");
    let code = "static int x; int *p = &x; int main(void) { return *p; }\n";
    std::fs::write(&source, code).is_ok()
        && Command::new(cc)
            .args(["-fPIE", "-pie", "-Wl,-z,pack-relative-relocs", "-o"])
            .arg(&program)
            .arg(&source)
            .output()
            .is_ok_and(|o| o.status.success())
        && Command::new(&program)
            .output()
            .is_ok_and(|o| o.status.success())
}
