use verdict_web::{PAGE_CSP, asset};

#[test]
fn the_page_and_its_scripts_are_served_with_their_types() {
    for (name, kind) in [
        ("index.html", "text/html"),
        ("style.css", "text/css"),
        ("app.js", "text/javascript"),
        ("examples.json", "application/json"),
    ] {
        let found = asset(name).unwrap_or_else(|| panic!("{name} is not embedded"));
        assert!(
            found.content_type.starts_with(kind),
            "{name}: {}",
            found.content_type
        );
        assert!(!found.body.is_empty(), "{name} is empty");
    }
    assert!(asset("../Cargo.toml").is_none());
    assert!(asset("missing.js").is_none());
}

#[test]
fn the_page_policy_forbids_inline_code_and_other_origins() {
    assert!(PAGE_CSP.contains("default-src 'self'"));
    assert!(PAGE_CSP.contains("script-src 'self';"));
    assert!(!PAGE_CSP.contains("unsafe-inline"));
    assert!(!PAGE_CSP.contains("unsafe-eval"));
}
