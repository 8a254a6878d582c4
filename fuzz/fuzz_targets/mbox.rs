//! The mbox reader: no panic; unchanged means copied byte for byte; the
//! messages and their From lines are kept; a second pass changes nothing.
#![no_main]

#[path = "../../tests/relink/oracle.rs"]
#[allow(dead_code)]
mod oracle;
#[path = "../../tests/relink/robust/props.rs"]
#[allow(dead_code)]
mod props;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = props::mbox_is_kept(data) {
        panic!("{e}");
    }
});
