//! Tag and attribute names: tag atoms (common ones without hashing), and the attributes read.

use html5ever::{LocalName, local_name};

/// The attribute names html5ever's tree builder and relink's arena look at:
/// `type` (hidden `input`), `encoding` (`annotation-xml`), `color`, `face`,
/// `size` (a `font` leaving foreign content), `shadowrootmode` and `href`
/// (a `base`). The others it reads (a `meta`'s encoding, `form`) change
/// nothing relink follows.
#[cfg_attr(not(feature = "_internal"), allow(dead_code))]
pub const READ_BY_TREE_BUILDER: &[&str] = &[
    "type",
    "encoding",
    "color",
    "face",
    "size",
    "shadowrootmode",
    "href",
];

/// The read attribute `name` (as the tokenizer gives it) as a static atom.
#[inline(always)]
pub(super) fn read_by_tree_builder(name: &[u8]) -> Option<LocalName> {
    Some(match name {
        b"type" => local_name!("type"),
        b"encoding" => local_name!("encoding"),
        b"color" => local_name!("color"),
        b"face" => local_name!("face"),
        b"size" => local_name!("size"),
        b"shadowrootmode" => local_name!("shadowrootmode"),
        b"href" => local_name!("href"),
        _ => return None,
    })
}

/// Whether a start tag makes a formatting element, whose attributes the tree
/// builder compares (the "Noah's Ark" clause).
#[inline]
pub(super) fn is_formatting(name: &str) -> bool {
    matches!(
        name,
        "a" | "b"
            | "big"
            | "code"
            | "em"
            | "font"
            | "i"
            | "nobr"
            | "s"
            | "small"
            | "strike"
            | "strong"
            | "tt"
            | "u"
    )
}

/// A name's first eight bytes as a little-endian number, zero padded (names hold no NUL).
pub(super) const fn name_key(name: &[u8]) -> u64 {
    let mut key = 0;
    let mut i = 0;
    while i < name.len() && i < 8 {
        key |= (name[i] as u64) << (8 * i);
        i += 1;
    }
    key
}

/// [`name_key`] of a name of at most eight bytes, by two overlapping loads.
#[inline]
pub(super) fn short_name_key(name: &[u8]) -> u64 {
    let n = name.len();
    match n {
        4..=8 => {
            let lo = u32::from_le_bytes([name[0], name[1], name[2], name[3]]);
            let hi = u32::from_le_bytes([name[n - 4], name[n - 3], name[n - 2], name[n - 1]]);
            u64::from(lo) | u64::from(hi) << (8 * (n - 4))
        }
        2..=3 => {
            let lo = u16::from_le_bytes([name[0], name[1]]);
            let hi = u16::from_le_bytes([name[n - 2], name[n - 1]]);
            u64::from(lo) | u64::from(hi) << (8 * (n - 2))
        }
        1 => u64::from(name[0]),
        _ => name_key(name),
    }
}

/// How many bits of a name's key pick its slot in [`SLOTS`].
const SLOT_BITS: u32 = 10;

/// The multiplier of [`slot`], chosen so that no two names of
/// [`short_tag_atoms!`] share a slot ([`SLOTS`] fails to compile if they do).
const MULTIPLIER: u64 = 0x5c15_fb63_ac73_e4dd;

/// The slot of a key: the top bits of its product with [`MULTIPLIER`].
const fn slot(key: u64) -> usize {
    (key.wrapping_mul(MULTIPLIER) >> (64 - SLOT_BITS)) as usize
}

/// For each slot, one more than its name's index, or 0: a perfect hash of the names.
static SLOTS: [u8; 1 << SLOT_BITS] = {
    let mut slots = [0u8; 1 << SLOT_BITS];
    let mut i = 0;
    while i < SHORT_KEYS.len() {
        let at = slot(SHORT_KEYS[i]);
        assert!(
            slots[at] == 0,
            "two tag names share a slot: change MULTIPLIER"
        );
        assert!(i < u8::MAX as usize);
        slots[at] = i as u8 + 1;
        i += 1;
    }
    slots
};

/// The static atom of a common tag name of at most eight bytes, by its [`name_key`].
#[inline]
pub(super) fn short_tag_atom(key: u64) -> Option<LocalName> {
    let index = usize::from(SLOTS[slot(key)]).checked_sub(1)?;
    (SHORT_KEYS[index] == key).then(|| SHORT_ATOMS[index].clone())
}

/// Defines [`SHORT_KEYS`] and [`SHORT_ATOMS`] over the names given, in order.
macro_rules! short_tag_atoms {
    ($($name:tt,)*) => {
        /// The key ([`name_key`]) of each name.
        const SHORT_KEYS: &[u64] = &[$(name_key($name.as_bytes()),)*];

        /// The static atom of each name.
        static SHORT_ATOMS: &[LocalName] = &[$(local_name!($name),)*];

        /// Every name [`short_tag_atom`] knows.
        #[cfg(test)]
        pub(super) const SHORT_TAG_NAMES: &[&str] = &[$($name),*];
    };
}

short_tag_atoms! {
    "a",
    "abbr",
    "address",
    "area",
    "article",
    "aside",
    "audio",
    "b",
    "base",
    "bdi",
    "bdo",
    "big",
    "body",
    "br",
    "button",
    "canvas",
    "caption",
    "center",
    "cite",
    "code",
    "col",
    "colgroup",
    "data",
    "datalist",
    "dd",
    "del",
    "details",
    "dfn",
    "dialog",
    "div",
    "dl",
    "dt",
    "em",
    "embed",
    "fieldset",
    "figure",
    "font",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hgroup",
    "hr",
    "html",
    "i",
    "iframe",
    "image",
    "img",
    "input",
    "ins",
    "kbd",
    "label",
    "legend",
    "li",
    "link",
    "listing",
    "main",
    "map",
    "mark",
    "menu",
    "meta",
    "meter",
    "nav",
    "nobr",
    "noembed",
    "noframes",
    "noscript",
    "object",
    "ol",
    "optgroup",
    "option",
    "output",
    "p",
    "param",
    "picture",
    "pre",
    "progress",
    "q",
    "rp",
    "rt",
    "ruby",
    "s",
    "samp",
    "script",
    "search",
    "section",
    "select",
    "slot",
    "small",
    "source",
    "span",
    "strike",
    "strong",
    "style",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "template",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "time",
    "title",
    "tr",
    "track",
    "tt",
    "u",
    "ul",
    "var",
    "video",
    "wbr",
    "xmp",
    "svg",
    "math",
    "mi",
    "mo",
    "mn",
    "ms",
    "mtext",
    "desc",
    "g",
    "path",
    "circle",
    "rect",
    "line",
    "polygon",
    "polyline",
    "ellipse",
    "text",
    "tspan",
    "use",
    "defs",
    "symbol",
    "clippath",
    "stop",
}

/// The atom of a tag name; common names map to their static atoms here, skipping the hash.
#[inline]
pub(super) fn tag_atom(name: &str) -> LocalName {
    if name.len() <= 8
        && let Some(atom) = short_tag_atom(short_name_key(name.as_bytes()))
    {
        return atom;
    }
    long_tag_atom(name)
}

/// [`tag_atom`] of a name not in [`SHORT_KEYS`].
#[inline(never)]
fn long_tag_atom(name: &str) -> LocalName {
    match name {
        "blockquote" => local_name!("blockquote"),
        "figcaption" => local_name!("figcaption"),
        "plaintext" => local_name!("plaintext"),
        "annotation-xml" => local_name!("annotation-xml"),
        "foreignobject" => local_name!("foreignobject"),
        _ => LocalName::from(name),
    }
}
