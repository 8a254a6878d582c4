//! The resolver. The input is one byte choosing the rules (RFC 1808, RFC
//! 3986, WHATWG, by its value modulo 3), then the base, a newline, and the
//! reference. No panic on any base; against a valid base the result is
//! absolute and resolves to itself.
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
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let rules = Rules::ALL[usize::from(selector) % Rules::ALL.len()];
    let text = String::from_utf8_lossy(rest);
    let (base, reference) = text.split_once('\n').unwrap_or((&text, ""));
    props::resolution_never_panics(base, reference);
    if let Err(e) = props::resolution_is_absolute_and_stable(rules, base, reference) {
        panic!("{e}");
    }
});
