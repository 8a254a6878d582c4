//! The HTML engine over the html5lib-tests tree-construction inputs.

use relink::html::tree::parse;

use crate::corpus::tree_construction_inputs;

#[test]
fn every_start_tag_is_located() {
    let inputs = tree_construction_inputs();
    assert!(inputs.len() > 1500, "{} inputs", inputs.len());
    let mut missing = Vec::new();
    for (name, data) in &inputs {
        let doc = parse(data, false);
        for tag in &doc.tags {
            if tag.source.is_none() {
                missing.push(format!("{name}: <{}> in {data:?}", tag.name));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "{} tags not located:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn located_tags_span_their_source() {
    let mut tags = 0;
    for (name, data) in tree_construction_inputs() {
        for tag in parse(&data, false).tags {
            let (start, lexed) = tag.source.expect("located");
            assert_eq!(data.as_bytes()[start], b'<', "{name}");
            assert_eq!(data.as_bytes()[lexed.end - 1], b'>', "{name}");
            tags += 1;
        }
    }
    assert!(tags > 5000, "{tags} tags");
}
