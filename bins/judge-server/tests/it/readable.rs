//! The page readable by everyone, measured in a real Chromium: no navigation on
//! the sign-in page, no focus ring drawn around the whole `main`, a focus ring and the green
//! badge at WCAG AA contrast, and a queue filter that offers every status of the contract.

use crate::faces::{TOKEN, server_config};
use crate::page::{SignedIn, click, eval, strings, wait_for};
use serde_json::{Value, json};

use verdict_contracts::JudgeStatus;

/// WCAG's contrast ratio of two computed CSS colours (`rgb(...)`), in the page.
const CONTRAST: &str = "
    const lum = (css) => {
        const [r, g, b] = css.match(/[\\d.]+/g).slice(0, 3).map((v) => {
            const c = Number(v) / 255;
            return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
";

/// The first opaque background behind `element`.
const BACKGROUND: &str = "
    const background = (el) => {
        for (; el; el = el.parentElement) {
            const c = getComputedStyle(el).backgroundColor;
            if (c && c !== 'transparent' && !/rgba\\(.*, 0\\)$/.test(c)) return c;
        }
        return 'rgb(255, 255, 255)';
    };
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_is_readable_by_everyone() {
    // (Signing in checks that the sign-in page shows no navigation.)
    let Some(page) = SignedIn::start(server_config(), TOKEN).await else {
        return;
    };
    let c = page.client();
    let measure = format!(
                "{CONTRAST}{BACKGROUND}
                 const main = document.querySelector('main');
                 main.focus();
                 const ring = getComputedStyle(main);
                 const mainRing = ring.outlineStyle !== 'none' && parseFloat(ring.outlineWidth) > 0;
                 const field = document.getElementById('submission');
                 field.focus();
                 const focus = getComputedStyle(field);
                 const fieldRing = [focus.outlineStyle, parseFloat(focus.outlineWidth), ratio(focus.outlineColor, background(field.parentElement))];
                 const badge = V.badge('Accepted', 'ok');
                 document.querySelector('main').append(badge);
                 const b = getComputedStyle(badge);
                 const badgeContrast = ratio(b.color, background(badge));
                 badge.remove();
                 return [mainRing, fieldRing, badgeContrast];"
    );
    let measured = eval(c, &measure).await;
    assert_eq!(
        measured[0],
        json!(false),
        "a focus ring is drawn around the whole main"
    );
    let ring = &measured[1];
    assert!(
        ring[0] != "none" && ring[1].as_f64().unwrap_or(0.0) >= 2.0,
        "no focus ring on a focused field: {ring}"
    );
    assert!(
        ring[2].as_f64().unwrap_or(0.0) >= 4.5,
        "the focus ring's contrast is below 4.5:1: {ring}"
    );
    assert!(
        measured[2].as_f64().unwrap_or(0.0) >= 4.5,
        "the green badge's contrast is below 4.5:1: {}",
        measured[2]
    );
    // The queue's status filter offers every final status of the contract.
    click(c, "nav a[href=\"#/queue\"]").await;
    wait_for(
        c,
        "return !!document.getElementById('filter-status');",
        10,
        "no queue",
    )
    .await;
    let offered: Value = eval(
        c,
        "return [...document.querySelectorAll('#filter-status option')].map((o) => o.value);",
    )
    .await;
    let offered = strings(&offered);
    for status in JudgeStatus::ALL {
        if status.is_in_progress() {
            continue;
        }
        assert!(
            offered.contains(&status.as_str()),
            "the queue filter lacks {:?}: {offered:?}",
            status.as_str()
        );
    }
    for state in ["queued", "running", "finished"] {
        assert!(offered.contains(&state), "{offered:?}");
    }
    page.close().await;
}
