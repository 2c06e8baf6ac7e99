//! The process's own heap: how glibc's allocator hands large blocks back to the kernel.
//!
//! glibc serves a block of 128 KiB or more with its own `mmap`, unmapped when freed, but it
//! raises that threshold (up to 32 MiB) each time such a block is freed, so from then on a
//! server's large request bodies, parsed Submissions and reports come from the heap arenas
//! and stay resident after they are freed: a `judge-server` that had queued ten 13 MiB
//! submissions kept ~300 MiB after judging them. A fixed threshold turns that
//! adjustment off: every large block is unmapped when freed.

/// The threshold set by [`return_large_blocks`]: glibc's default, fixed.
pub const MMAP_THRESHOLD: usize = 128 * 1024;

/// Makes every heap block of at least [`MMAP_THRESHOLD`] bytes its own mapping, given back to
/// the kernel when it is freed (glibc's dynamic threshold off); whether the allocator took it.
/// Call it once, early in `main`. Elsewhere than glibc it does nothing and returns `false`.
pub fn return_large_blocks() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let threshold = libc::c_int::try_from(MMAP_THRESHOLD).unwrap_or(libc::c_int::MAX);
        // SAFETY: mallopt only sets an allocator parameter; it takes no pointer and is
        // thread-safe (it takes the arenas' locks).
        unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, threshold) == 1 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_threshold_is_taken() {
        assert_eq!(
            return_large_blocks(),
            cfg!(all(target_os = "linux", target_env = "gnu"))
        );
    }
}
