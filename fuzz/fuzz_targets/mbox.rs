//! The mbox reader: no panic; unchanged means copied byte for byte; the
//! messages and their From lines are kept; a second pass changes nothing.
#![no_main]

#[path = "../../tests/relink/robust/props.rs"]
#[allow(dead_code)]
mod props;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if props::known::skipped()
        && (props::known::non_ascii_in_a_base_header(data)
            || props::known::huge_content_length(data)
            || props::known::qp_soft_break_before_a_blank_line(data)
            || props::known::base64_line_before_a_blank_line(data))
    {
        return;
    }
    if let Err(e) = props::mbox_is_kept(data) {
        panic!("{e}");
    }
});
