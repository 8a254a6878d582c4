//! The message reader: no panic; no base, no change; with a base the MIME
//! tree and headers are kept and a second pass changes nothing.
#![no_main]

#[path = "../../tests/relink/oracle.rs"]
#[allow(dead_code)]
mod oracle;
#[path = "../../tests/relink/robust/props.rs"]
#[allow(dead_code)]
mod props;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let checks = [
        props::message_without_a_base_is_unchanged(data),
        props::message_is_kept_and_idempotent(data),
    ];
    for check in checks {
        if let Err(e) = check {
            panic!("{e}");
        }
    }
});
