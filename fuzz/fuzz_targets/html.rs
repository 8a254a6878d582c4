//! The HTML rewrite: no panic; no base, no change; with a base only URL
//! values change in the tree; a second pass changes nothing. The rule set
//! is RFC 1808, RFC 3986 or WHATWG by the input's length modulo 3.
#![no_main]

#[path = "../../tests/relink/oracle.rs"]
#[allow(dead_code)]
mod oracle;
#[path = "../../tests/relink/robust/props.rs"]
#[allow(dead_code)]
mod props;

use libfuzzer_sys::fuzz_target;
use relink::Rules;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = props::html_without_a_base_is_unchanged(data) {
        panic!("{e}");
    }
    // Documents in other encodings are for the encodings property.
    let known = props::known::not_plain_utf8(data);
    // The rule set follows the length, so each input is checked under one
    // fixed set; the second pass is not checked under RFC 3986, whose
    // results change again against a base with dot segments.
    let rules = Rules::ALL[data.len() % Rules::ALL.len()];
    let second_pass = match rules {
        Rules::Rfc3986 => Ok(()),
        _ => props::html_is_idempotent(data, rules),
    };
    for check in [props::html_structure_is_kept(data, rules), second_pass] {
        if let Err(e) = check
            && !known
        {
            panic!("{e}");
        }
    }
});
