//! Which attributes hold URLs: a table of (namespace, element, attribute,
//! syntax), not a long `match`.

use html5ever::LocalName;

use super::arena::Namespace;

/// How an attribute's value holds its URLs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// One URL.
    Url,
    /// URLs separated by ASCII white space.
    SpaceList,
    /// URLs separated by commas.
    CommaList,
    /// A `srcset`: candidates of a URL and descriptors.
    Srcset,
    /// A meta refresh `content`: a time, then maybe a URL.
    Refresh,
    /// CSS declarations (a `style` attribute).
    Css,
    /// A whole HTML document (`iframe srcdoc`).
    Srcdoc,
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct LinkAttribute {
    /// The element's namespace.
    pub namespace: Namespace,
    /// The element's local name, or `*` for any element.
    pub element: &'static str,
    /// The attribute, as the tokenizer names it (`xlink:href` included).
    pub attribute: &'static str,
    /// How the value holds URLs.
    pub syntax: Syntax,
    /// Resolved against the element's own `codebase` (object, applet).
    pub codebase: bool,
    /// Only when another attribute has this value (ASCII case-insensitive).
    pub only_if: Option<(&'static str, &'static str)>,
}

const fn row(element: &'static str, attribute: &'static str, syntax: Syntax) -> LinkAttribute {
    LinkAttribute {
        namespace: Namespace::Html,
        element,
        attribute,
        syntax,
        codebase: false,
        only_if: None,
    }
}

const fn with_codebase(mut r: LinkAttribute) -> LinkAttribute {
    r.codebase = true;
    r
}

const fn only_if(
    mut r: LinkAttribute,
    attribute: &'static str,
    value: &'static str,
) -> LinkAttribute {
    r.only_if = Some((attribute, value));
    r
}

const fn svg(attribute: &'static str, syntax: Syntax) -> LinkAttribute {
    LinkAttribute {
        namespace: Namespace::Svg,
        element: "*",
        attribute,
        syntax,
        codebase: false,
        only_if: None,
    }
}

use Syntax::*;

/// Every URL-bearing attribute relink knows.
pub const LINK_ATTRIBUTES: &[LinkAttribute] = &[
    row("a", "href", Url),
    row("area", "href", Url),
    row("link", "href", Url),
    row("base", "href", Url),
    row("img", "src", Url),
    // The tree builder makes `<image>` an `img` (HTML "in body" insertion
    // mode), which browsers load; in SVG it stays `image`, with `href`.
    row("image", "src", Url),
    row("script", "src", Url),
    row("iframe", "src", Url),
    row("frame", "src", Url),
    row("embed", "src", Url),
    row("audio", "src", Url),
    row("video", "src", Url),
    row("source", "src", Url),
    row("track", "src", Url),
    row("input", "src", Url),
    row("form", "action", Url),
    row("button", "formaction", Url),
    row("input", "formaction", Url),
    row("blockquote", "cite", Url),
    row("q", "cite", Url),
    row("del", "cite", Url),
    row("ins", "cite", Url),
    with_codebase(row("object", "data", Url)),
    row("video", "poster", Url),
    row("html", "manifest", Url),
    row("body", "background", Url),
    row("table", "background", Url),
    row("td", "background", Url),
    row("th", "background", Url),
    row("img", "longdesc", Url),
    row("frame", "longdesc", Url),
    row("iframe", "longdesc", Url),
    row("img", "lowsrc", Url),
    row("img", "dynsrc", Url),
    row("*", "itemid", Url),
    with_codebase(row("object", "classid", Url)),
    row("object", "codebase", Url),
    with_codebase(row("applet", "code", Url)),
    row("applet", "codebase", Url),
    only_if(row("param", "value", Url), "valuetype", "ref"),
    row("a", "ping", SpaceList),
    row("area", "ping", SpaceList),
    with_codebase(row("object", "archive", SpaceList)),
    with_codebase(row("applet", "archive", CommaList)),
    row("head", "profile", SpaceList),
    row("img", "srcset", Srcset),
    row("source", "srcset", Srcset),
    row("link", "imagesrcset", Srcset),
    only_if(row("meta", "content", Refresh), "http-equiv", "refresh"),
    row("*", "style", Css),
    row("iframe", "srcdoc", Srcdoc),
    svg("href", Url),
    svg("xlink:href", Url),
    svg("style", Css),
];

/// The (element, attribute) pairs that load a resource into the page
/// (images, media, frames' content is not one), which take the resource
/// base (`--resource-base`) when one stands in for the retrieval URL.
/// Style attributes, whose `url()`s load resources, are found by their
/// syntax.
pub const RESOURCES: &[(&str, &str)] = &[
    ("img", "src"),
    ("image", "src"),
    ("img", "srcset"),
    ("img", "lowsrc"),
    ("img", "dynsrc"),
    ("source", "src"),
    ("source", "srcset"),
    ("link", "imagesrcset"),
    ("video", "src"),
    ("video", "poster"),
    ("audio", "src"),
    ("track", "src"),
    ("embed", "src"),
    ("input", "src"),
    ("body", "background"),
    ("table", "background"),
    ("td", "background"),
    ("th", "background"),
];

/// Whether a row's URLs load resources (see [`RESOURCES`]).
pub fn is_resource(row: &LinkAttribute) -> bool {
    row.syntax == Syntax::Css
        || RESOURCES
            .iter()
            .any(|&(e, a)| e == row.element && a == row.attribute)
}

/// The table indexed for [`lookup_raw`], built once: most attributes of a
/// document hold no URL, and are turned away by one load from `slots`.
struct Index {
    /// For each (first byte's low five bits, length up to 31), up to two
    /// distinct names of the table: each one's index in `names` plus one
    /// (0 for none). Letters of either case share their low five bits.
    slots: [[u8; 2]; 32 * 32],
    /// Each distinct attribute name of the table, with its rows and each
    /// row's element as an atom (`None` for any element), in table order.
    names: Vec<(Name, Rows)>,
}

/// The rows of one attribute name, each with its element as an atom
/// (`None` for any element).
type Rows = Vec<(Option<LocalName>, &'static LinkAttribute)>;

/// A name of the table (at most 16 bytes, lower case), as [`words`] reads
/// it, with the bit that turns an upper case letter lower set where it has
/// a letter: a name as written is it in any ASCII case exactly when, ORed
/// with that bit, its words are these.
struct Name {
    words: (u64, u64),
    fold: (u64, u64),
}

impl Name {
    fn new(name: &[u8]) -> Self {
        let fold: Vec<u8> = name
            .iter()
            .map(|b| if b.is_ascii_lowercase() { 0x20 } else { 0 })
            .collect();
        Name {
            words: words(name),
            fold: words(&fold),
        }
    }

    /// Whether `raw`, of the name's length, is the name in any ASCII case.
    #[inline]
    fn matches(&self, raw: &[u8]) -> bool {
        let (a, b) = words(raw);
        (a | self.fold.0) == self.words.0 && (b | self.fold.1) == self.words.1
    }
}

/// Where a name of `len` bytes starting with `first` goes in [`Index::slots`].
fn slot(first: u8, len: usize) -> usize {
    usize::from(first & 0x1f) << 5 | len
}

/// A name of at most 16 bytes as two words that together hold each of its
/// bytes at a place its length fixes: overlapping loads of its first and
/// last eight, or four; of one to three bytes, the first, middle and last.
#[inline]
fn words(name: &[u8]) -> (u64, u64) {
    let word4 = |part: &[u8; 4]| u64::from(u32::from_le_bytes(*part));
    match (name.first_chunk::<8>(), name.last_chunk::<8>()) {
        (Some(&head), Some(&tail)) => (u64::from_le_bytes(head), u64::from_le_bytes(tail)),
        _ => match (name.first_chunk::<4>(), name.last_chunk::<4>()) {
            (Some(head), Some(tail)) => (word4(head) | word4(tail) << 32, 0),
            _ => match name {
                [] => (0, 0),
                [first, ..] => {
                    let (middle, last) = (name[name.len() / 2], name[name.len() - 1]);
                    (u64::from_le_bytes([*first, middle, last, 0, 0, 0, 0, 0]), 0)
                }
            },
        },
    }
}

static INDEX: std::sync::LazyLock<Index> = std::sync::LazyLock::new(|| {
    let mut index = Index {
        slots: [[0; 2]; 32 * 32],
        names: Vec::new(),
    };
    let mut names: Vec<&str> = Vec::new();
    for row in LINK_ATTRIBUTES {
        let element = (row.element != "*").then(|| LocalName::from(row.element));
        if let Some(at) = names.iter().position(|n| *n == row.attribute) {
            index.names[at].1.push((element, row));
            continue;
        }
        names.push(row.attribute);
        let name = row.attribute.as_bytes();
        assert!(name.len() <= 16, "names of 16 bytes at most");
        index.names.push((Name::new(name), vec![(element, row)]));
        let place = &mut index.slots[slot(name[0], name.len())];
        // The tests hold the table to two names a slot, and fewer than 255.
        let free = place
            .iter_mut()
            .find(|n| **n == 0)
            .expect("two names a slot at most");
        *free = u8::try_from(names.len()).expect("fewer than 255 names");
    }
    index
});

/// For each first letter of an attribute name in the table, a bit for
/// each length (up to 31) a name of the table has.
static LENGTHS_BY_FIRST: std::sync::LazyLock<[u32; 128]> = std::sync::LazyLock::new(|| {
    let mut lengths = [0u32; 128];
    for row in LINK_ATTRIBUTES {
        let first = row.attribute.as_bytes().first().copied().unwrap_or(0);
        lengths[usize::from(first & 0x7f)] |= 1 << row.attribute.len().min(31);
    }
    lengths
});

/// Whether an attribute named `raw` (as written, any case) may be in the
/// table: a test of its first letter and length that turns away most
/// names (`class`, `id`, `alt`, `data-*`) before any lowering or hashing.
pub fn may_hold_url(raw: &[u8]) -> bool {
    let Some(&first) = raw.first() else {
        return false;
    };
    if !first.is_ascii() || raw.len() > 31 {
        return false;
    }
    LENGTHS_BY_FIRST[usize::from(first.to_ascii_lowercase())] & (1 << raw.len()) != 0
}

/// The row for an attribute of an element, if it holds URLs; `attribute`
/// as the tokenizer names it (lower case).
pub fn lookup(
    namespace: Namespace,
    element: &str,
    attribute: &str,
) -> Option<&'static LinkAttribute> {
    if attribute.bytes().any(|b| b.is_ascii_uppercase()) {
        return None;
    }
    lookup_raw(namespace, &LocalName::from(element), attribute.as_bytes())
}

/// [`lookup`] by the attribute's name as written in the source, in any
/// ASCII case (the tokenizer lowers ASCII upper case; a name with a NUL,
/// which it replaces, is in no row): the row found names the attribute as
/// the tokenizer does, `row.attribute`. One load turns away most names,
/// and elements are compared as atoms.
#[inline]
pub fn lookup_raw(
    namespace: Namespace,
    element: &LocalName,
    raw: &[u8],
) -> Option<&'static LinkAttribute> {
    let &first = raw.first()?;
    if raw.len() > 16 {
        return None;
    }
    let index = &*INDEX;
    let slot = &index.slots[slot(first, raw.len())];
    if slot[0] == 0 {
        return None;
    }
    index.find(slot, namespace, element, raw)
}

impl Index {
    /// [`lookup_raw`] past its first test: the row for `raw`, one of the
    /// names of its `slot`, on `element`.
    #[inline(never)]
    fn find(
        &self,
        slot: &[u8; 2],
        namespace: Namespace,
        element: &LocalName,
        raw: &[u8],
    ) -> Option<&'static LinkAttribute> {
        let named = |n: u8| self.names.get(usize::from(n).wrapping_sub(1));
        let rows = match named(slot[0]) {
            Some((name, rows)) if name.matches(raw) => rows,
            _ => match named(slot[1]) {
                Some((name, rows)) if name.matches(raw) => rows,
                _ => return None,
            },
        };
        rows.iter()
            .find(|(e, r)| r.namespace == namespace && e.as_ref().is_none_or(|e| e == element))
            .map(|&(_, r)| r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name as written matches a name of the table's kind (lower case
    /// letters, `:` and `-`) of its length exactly when they are equal in
    /// any ASCII case: on names of bytes around the letters, bytes one bit
    /// from `:` and `-`, and high bytes whose low seven bits are letters,
    /// of every length.
    #[test]
    fn a_name_matches_exactly_when_equal_in_any_case() {
        let alphabet = [
            b'a', b'A', b'z', b'Z', b'@', b'[', b'`', b'{', b':', b'-', 0x1a, 0x0d, 0xc1, 0xe1,
            0xda, 0,
        ];
        let letters = [b'a', b'z', b'h', b':', b'-'];
        let mut state: u64 = 0x853c_49e6_748f_ea9b;
        let mut next = |n: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize % n
        };
        for _ in 0..40_000 {
            let len = 1 + next(16);
            let name: Vec<u8> = (0..len).map(|_| letters[next(letters.len())]).collect();
            // Mostly the name in other cases, sometimes with a byte changed.
            let mut raw: Vec<u8> = name
                .iter()
                .map(|c| match next(2) {
                    0 => c.to_ascii_uppercase(),
                    _ => *c,
                })
                .collect();
            if next(2) == 0 {
                raw[next(len)] = alphabet[next(alphabet.len())];
            }
            assert_eq!(
                Name::new(&name).matches(&raw),
                name.eq_ignore_ascii_case(&raw),
                "{name:?} {raw:?}"
            );
        }
    }

    #[test]
    fn every_name_of_the_table_may_hold_a_url() {
        for row in LINK_ATTRIBUTES {
            assert!(may_hold_url(row.attribute.as_bytes()), "{}", row.attribute);
            assert!(may_hold_url(row.attribute.to_ascii_uppercase().as_bytes()));
        }
        for name in ["class", "id", "alt", "", "\u{e9}"] {
            assert!(!may_hold_url(name.as_bytes()), "{name}");
        }
    }

    #[test]
    fn looks_up_by_namespace_element_and_attribute() {
        assert_eq!(
            lookup(Namespace::Html, "a", "href").map(|r| r.syntax),
            Some(Url)
        );
        assert!(lookup(Namespace::Html, "div", "href").is_none());
        assert_eq!(
            lookup(Namespace::Html, "div", "style").map(|r| r.syntax),
            Some(Css)
        );
        assert!(lookup(Namespace::Svg, "use", "xlink:href").is_some());
        assert!(lookup(Namespace::Svg, "use", "src").is_none());
        assert!(lookup(Namespace::Html, "object", "data").is_some_and(|r| r.codebase));
        assert!(lookup(Namespace::Html, "image", "src").is_some());
        assert!(lookup(Namespace::Svg, "image", "src").is_none());
        assert!(lookup(Namespace::Html, "a", "HREF").is_none());
    }

    #[test]
    fn looks_up_names_as_written_in_any_case() {
        let a = LocalName::from("a");
        let div = LocalName::from("div");
        let iframe = LocalName::from("iframe");
        for (element, raw, attribute) in [
            (&a, &b"HREF"[..], "href"),
            (&a, b"hReF", "href"),
            (&div, b"Style", "style"),
            (&iframe, b"SRCDOC", "srcdoc"),
            (&iframe, b"src", "src"),
        ] {
            let row = lookup_raw(Namespace::Html, element, raw);
            assert_eq!(row.map(|r| r.attribute), Some(attribute));
        }
        for raw in [
            &b"hre\0"[..],
            b"hre",
            b"srcse",
            b"\xe9",
            b"",
            b"data-src",
            b"cite",
        ] {
            assert!(lookup_raw(Namespace::Html, &a, raw).is_none(), "{raw:?}");
        }
        assert!(lookup_raw(Namespace::Svg, &div, b"XLINK:HREF").is_some());
    }

    #[test]
    fn every_row_is_found_by_its_names() {
        for row in LINK_ATTRIBUTES {
            let element = if row.element == "*" {
                "x-any"
            } else {
                row.element
            };
            let found = lookup_raw(
                row.namespace,
                &LocalName::from(element),
                row.attribute.as_bytes(),
            );
            // The first row of a name and element is the one found.
            let first = LINK_ATTRIBUTES.iter().find(|r| {
                r.namespace == row.namespace
                    && r.attribute == row.attribute
                    && (r.element == "*" || r.element == element)
            });
            let found = found.map(|r| format!("{r:?}"));
            assert_eq!(found, first.map(|r| format!("{r:?}")), "{}", row.attribute);
            let upper = row.attribute.to_ascii_uppercase();
            assert!(
                lookup_raw(row.namespace, &LocalName::from(element), upper.as_bytes()).is_some()
            );
        }
    }
}
