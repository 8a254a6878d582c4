//! The web archive reader: no panic; an archive reported unchanged is
//! copied byte for byte, one of absolute links is unchanged; gzip that
//! decodes whole still does; record text quoted in a block is never read
//! as a record. The first byte chooses the input: odd, the rest is an
//! archive as it is; even, the next eight bytes seed an archive built from
//! the record dialects and damage of `generate.rs` (the structure fuzzer's
//! generator, whose warcio checks the integration tests run).
#![no_main]

#[path = "../../tests/relink/warc_fuzz/check.rs"]
#[allow(dead_code)]
mod check;
#[path = "../../tests/relink/warc_fuzz/generate.rs"]
#[allow(dead_code)]
mod generate;

use std::collections::BTreeSet;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let (input, tags, absolute) = if mode & 1 == 1 {
        (rest.to_vec(), BTreeSet::new(), false)
    } else {
        let mut seed = [0u8; 8];
        let n = rest.len().min(8);
        seed[..n].copy_from_slice(&rest[..n]);
        let archive = generate::archive(&mut generate::Rng(u64::from_le_bytes(seed)));
        (archive.bytes, archive.tags, archive.absolute)
    };
    let case = check::rewrite(String::new(), input, tags, absolute);
    if let Some((broken, what)) = case.broken.first() {
        panic!("{broken:?}: {what}");
    }
});
