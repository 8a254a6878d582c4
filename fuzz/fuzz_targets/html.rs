//! The HTML rewrite: no panic; no base, no change; with a base only URL
//! values change in the tree; a second pass changes nothing.
#![no_main]

#[path = "../../tests/relink/robust/props.rs"]
#[allow(dead_code)]
mod props;

use libfuzzer_sys::fuzz_target;
use relink::Rules;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = props::html_without_a_base_is_unchanged(data) {
        panic!("{e}");
    }
    let known = props::known::skipped()
        && (props::known::legacy_encoding(data)
            || props::known::legacy_quot_in_srcdoc(data)
            || props::known::base_with_a_list_separator(data));
    for check in [
        props::html_structure_is_kept(data, Rules::Rfc1808),
        props::html_is_idempotent(data, Rules::Rfc1808),
    ] {
        if let Err(e) = check
            && !known
        {
            panic!("{e}");
        }
    }
});
