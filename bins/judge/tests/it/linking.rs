//! How `judge` is linked (build.rs): its start is a one-shot `judge sandbox`'s (issue 16).

use std::process::Command;

/// Whether the C compiler has `libgcc_eh.a`, the archive build.rs links instead.
fn has_libgcc_eh() -> bool {
    Command::new("cc")
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .is_ok_and(|out| {
            let path = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            path.starts_with('/') && std::path::Path::new(&path).is_file()
        })
}

/// `judge`'s dynamic section, as `readelf` prints it.
fn judge_dynamic_section() -> String {
    let out = Command::new("readelf")
        .args(["--dynamic", env!("CARGO_BIN_EXE_judge")])
        .output()
        .expect("readelf (binutils) runs");
    assert!(out.status.success(), "readelf failed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn judge_does_not_load_libgcc_s_where_libgcc_eh_is_at_hand() {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) || !has_libgcc_eh() {
        return;
    }
    let dynamic = judge_dynamic_section();
    assert!(dynamic.contains("(NEEDED)"), "{dynamic}");
    assert!(!dynamic.contains("libgcc_s"), "{dynamic}");
}

/// Whether a PIE with a relative relocation, linked with `-z pack-relative-relocs`, links and
/// runs here (binutils 2.38 and glibc 2.36 or later).
fn toolchain_packs_relative_relocs() -> bool {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = dir.path().join("p.c");
    let program = dir.path().join("p");
    std::fs::write(
        &source,
        "static int x; int *p = &x; int main(void) { return *p; }\n",
    )
    .expect("write");
    Command::new("cc")
        .args(["-fPIE", "-pie", "-Wl,-z,pack-relative-relocs", "-o"])
        .arg(&program)
        .arg(&source)
        .output()
        .is_ok_and(|o| o.status.success())
        && Command::new(&program)
            .output()
            .is_ok_and(|o| o.status.success())
}

#[test]
fn judge_packs_its_relative_relocations_where_the_toolchain_can() {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) || !toolchain_packs_relative_relocs() {
        return;
    }
    let dynamic = judge_dynamic_section();
    assert!(dynamic.contains("(RELR)"), "{dynamic}");
    // Still position-independent: loaded at a random address.
    assert!(dynamic.contains("PIE"), "{dynamic}");
}

/// This test binary is linked as `judge` is (build.rs's search path holds for every target of
/// the package): a panic unwinds through the static unwinder, running destructors, and is
/// caught, as tokio does with a panicking task.
#[test]
fn a_panic_unwinds_and_is_caught_with_the_static_unwinder() {
    struct Flag<'a>(&'a std::cell::Cell<bool>);
    impl Drop for Flag<'_> {
        fn drop(&mut self) {
            self.0.set(true);
        }
    }
    let dropped = std::cell::Cell::new(false);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _flag = Flag(&dropped);
        panic!("unwinding test");
    }));
    assert!(caught.is_err());
    assert!(dropped.get(), "the destructor ran while unwinding");
}
