//! Generated documents of one shape repeated, for the throughput and
//! memory benches: deep nesting, long runs of one tag, one huge attribute,
//! CSS of URLs, and a link-dense page made of the real pages.

/// `head`, then `unit` as often as fits in `bytes`, then `tail`.
fn repeat(bytes: usize, head: &str, unit: &str, tail: &str) -> String {
    let count = bytes.saturating_sub(head.len() + tail.len()) / unit.len();
    let mut out = String::with_capacity(bytes);
    out.push_str(head);
    for _ in 0..count {
        out.push_str(unit);
    }
    out.push_str(tail);
    out
}

/// Every shape, about `bytes` long (the link-dense page a third longer),
/// by name.
pub fn all(bytes: usize, pages: &[String]) -> Vec<(&'static str, String)> {
    let mut dense = String::with_capacity(bytes * 4 / 3 + (1 << 20));
    while dense.len() < bytes * 4 / 3 {
        for page in pages {
            dense.push_str(page);
        }
    }
    vec![
        ("<svg><g> nested", repeat(bytes, "<svg>", "<g>", "")),
        ("<b> repeated", repeat(bytes, "", "<b>", "")),
        ("<template> nested", repeat(bytes, "", "<template>", "")),
        (
            "<table><tr><td> nested",
            repeat(bytes, "", "<table><tr><td>", ""),
        ),
        ("<div> nested", repeat(bytes, "", "<div>", "")),
        ("<a href=x> repeated", repeat(bytes, "", "<a href=x>", "")),
        (
            "one attribute of &amp;",
            repeat(bytes, "<a href=\"", "&amp;", "\">"),
        ),
        (
            "<a href=\"x\">y</a> lines",
            repeat(bytes, "", "<a href=\"x\">y</a>\n", ""),
        ),
        (
            "<style> of url() rules",
            repeat(
                bytes,
                "<style>",
                ".a{background:url(i/a.png) no-repeat}\n",
                "</style>",
            ),
        ),
        (
            "style attributes with url()",
            repeat(
                bytes,
                "",
                "<p style=\"background:url(i/a.png)\">x</p>\n",
                "",
            ),
        ),
        ("link-dense page", dense),
    ]
}
