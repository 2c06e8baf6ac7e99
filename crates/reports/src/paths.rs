//! Paths printed by the tools, made relative to the box.

use std::path::Path;

/// `path` relative to `box_dir` when it lies inside it, else `path` unchanged.
///
/// A leading `./` is dropped. Paths outside the box (system headers, valgrind's own
/// objects) are kept as the tool printed them.
pub fn relative_to_box(path: &str, box_dir: &Path) -> String {
    let path_ref = Path::new(path);
    if path_ref.is_absolute()
        && let Ok(rest) = path_ref.strip_prefix(box_dir)
    {
        return rest.to_string_lossy().into_owned();
    }
    path.strip_prefix("./").unwrap_or(path).to_owned()
}

/// `text` with every occurrence of `box_dir` followed by `/` removed.
pub(crate) fn strip_box_prefix(text: &str, box_dir: &Path) -> String {
    let prefix = box_dir.to_string_lossy();
    let prefix = prefix.trim_end_matches('/');
    if prefix.is_empty() {
        return text.to_owned();
    }
    text.replace(&format!("{prefix}/"), "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_the_box_becomes_relative() {
        let b = Path::new("/tmp/box");
        assert_eq!(relative_to_box("/tmp/box/src/a.cpp", b), "src/a.cpp");
        assert_eq!(relative_to_box("/tmp/box/", b), "");
        assert_eq!(relative_to_box("./a.cpp", b), "a.cpp");
        assert_eq!(relative_to_box("a.cpp", b), "a.cpp");
    }

    #[test]
    fn outside_the_box_is_kept() {
        let b = Path::new("/tmp/box");
        assert_eq!(
            relative_to_box("/usr/include/stdio.h", b),
            "/usr/include/stdio.h"
        );
        assert_eq!(relative_to_box("/tmp/boxer/a.cpp", b), "/tmp/boxer/a.cpp");
    }

    #[test]
    fn box_prefix_is_stripped_from_text() {
        let b = Path::new("/tmp/box/");
        assert_eq!(strip_box_prefix("/tmp/box/t.cpp:8\nx", b), "t.cpp:8\nx");
        assert_eq!(strip_box_prefix("t.cpp:8", Path::new("")), "t.cpp:8");
    }
}
