//! What the book says of itself: the package documents `META-INF/container.xml`
//! names (`rootfile/@full-path`), and the media type each package
//! document's manifest gives its files (`item/@href`, `@media-type`).
//! Only read here to tell which reader a file goes to; their links are
//! the XML reader's.

use std::collections::HashMap;

use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

/// The values of the attributes `names` of every element named `element`
/// (local names, any prefix) of an XML document, in document order; what
/// cannot be read ends the list there.
fn attributes(xml: &[u8], element: &str, names: &[&str]) -> Vec<Vec<Option<String>>> {
    let mut reader = Reader::from_reader(xml);
    let mut found = Vec::new();
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(tag) | Event::Empty(tag)) if tag.local_name().as_ref() == element => {
                found.push(names.iter().map(|name| value(&tag, name)).collect());
            }
            Ok(Event::Eof) | Err(_) => break,
            Ok(_) => {}
        }
        buf.clear();
    }
    found
}

/// An attribute's value, its references decoded.
fn value(tag: &BytesStart<'_>, name: &str) -> Option<String> {
    tag.attributes().flatten().find_map(|a| {
        (a.key.local_name().as_ref() == name)
            .then(|| {
                quick_xml::escape::unescape(&a.value)
                    .ok()
                    .map(|v| v.into_owned())
            })
            .flatten()
    })
}

/// The package documents `container.xml` names, as container paths.
pub(super) fn rootfiles(container_xml: &[u8]) -> Vec<String> {
    attributes(container_xml, "rootfile", &["full-path"])
        .into_iter()
        .filter_map(|mut values| values.pop().flatten())
        .filter_map(|path| join("", &path))
        .collect()
}

/// The media type the manifest of the package document at `package` (a
/// container path) gives each file it lists, by container path.
pub(super) fn media_types(package: &str, opf: &[u8], types: &mut HashMap<String, String>) {
    let dir = package.rfind('/').map_or("", |slash| &package[..=slash]);
    for values in attributes(opf, "item", &["href", "media-type"]) {
        if let [Some(href), Some(media)] = &values[..]
            && let Some(path) = join(dir, href)
        {
            types
                .entry(path)
                .or_insert_with(|| media.trim().to_ascii_lowercase());
        }
    }
}

/// The container path a relative URL `href` names from the folder `dir`
/// (empty, or ending in `/`): its fragment and query left out, `%XX`
/// decoded, `.` and `..` taken away; none if it has a scheme, starts with
/// `/`, or climbs above the root.
pub(super) fn join(dir: &str, href: &str) -> Option<String> {
    let href = href.trim();
    let end = href.find(['#', '?']).unwrap_or(href.len());
    let href = &href[..end];
    if href.starts_with('/') || crate::url::BaseUrl::has_scheme(href) {
        return None;
    }
    let mut segments: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for segment in href.split('/') {
        match segment {
            "." | "" => {}
            ".." => {
                segments.pop()?;
            }
            other => segments.push(other),
        }
    }
    Some(super::percent_decode(&segments.join("/")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rootfiles_and_manifest_items_are_container_paths() {
        let container = br#"<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="EPUB/package.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#;
        assert_eq!(rootfiles(container), ["EPUB/package.opf"]);
        let opf = br#"<package xmlns="http://www.idpf.org/2007/opf"><manifest>
            <item id="a" href="text/ch%201.xhtml#x" media-type="application/xhtml+xml"/>
            <opf:item id="b" href="../style.css" media-type="Text/CSS"/>
            <item id="c" href="../../out.css" media-type="text/css"/></manifest></package>"#;
        let mut types = HashMap::new();
        media_types("EPUB/package.opf", opf, &mut types);
        assert_eq!(types["EPUB/text/ch 1.xhtml"], "application/xhtml+xml");
        assert_eq!(types["style.css"], "text/css");
        assert_eq!(types.len(), 2);
        assert_eq!(join("a/", "http://x/y"), None);
        assert_eq!(join("a/b/", "./c/../d"), Some("a/b/d".to_owned()));
    }
}
