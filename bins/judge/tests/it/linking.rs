//! How `judge` is linked (build.rs): its start is a one-shot `judge sandbox`'s.

use std::process::Command;

#[path = "../../build/link_probes.rs"]
mod link_probes;

/// Whether the C compiler has `libgcc_eh.a`, the archive build.rs links instead.
fn has_libgcc_eh() -> bool {
    link_probes::has_libgcc_eh("cc")
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

/// [`judge_dynamic_section`] on a GNU/Linux host where `holds` (else `None`: nothing to check).
fn dynamic_section_where(holds: impl FnOnce() -> bool) -> Option<String> {
    (cfg!(all(target_os = "linux", target_env = "gnu")) && holds()).then(judge_dynamic_section)
}

#[test]
fn judge_does_not_load_libgcc_s_where_libgcc_eh_is_at_hand() {
    let Some(dynamic) = dynamic_section_where(has_libgcc_eh) else {
        return;
    };
    assert!(dynamic.contains("(NEEDED)"), "{dynamic}");
    assert!(!dynamic.contains("libgcc_s"), "{dynamic}");
}

/// Whether the toolchain here links and runs a DT_RELR program (the probe `build.rs` uses,
/// run again here rather than trusting the build script's decision).
fn toolchain_packs_relative_relocs() -> bool {
    let dir = tempfile::tempdir().expect("tempdir");
    link_probes::packs_relative_relocs("cc", dir.path())
}

#[test]
fn judge_packs_its_relative_relocations_where_the_toolchain_can() {
    let Some(dynamic) = dynamic_section_where(toolchain_packs_relative_relocs) else {
        return;
    };
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
