//! Tag and attribute names: tag atoms (common ones without hashing), and the attributes read.

use html5ever::{LocalName, local_name};

/// The attributes html5ever's tree builder and relink's arena look at, each
/// on the one element it is read on: `type` (a hidden `input`), `href` (a
/// `base`), `color`, `face`, `size` (a `font` leaving foreign content),
/// `shadowrootmode` (a `template`) and `encoding` (`annotation-xml`). The
/// others it reads (a `meta`'s encoding, `form`) change nothing relink
/// follows. An `href` on every `a` and a `type` on every `script` are
/// neither decoded nor kept.
#[cfg_attr(not(feature = "_internal"), allow(dead_code))]
pub const READ_BY_TREE_BUILDER: &[(&str, &str)] = &[
    ("input", "type"),
    ("base", "href"),
    ("font", "color"),
    ("font", "face"),
    ("font", "size"),
    ("template", "shadowrootmode"),
    ("annotation-xml", "encoding"),
];

/// The read attribute `name` (as the tokenizer gives it) as a static atom,
/// with the one element it is read on: the name is tested first, as most
/// are none of them.
#[inline(always)]
pub(super) fn read_by_tree_builder(name: &[u8]) -> Option<(LocalName, &'static str)> {
    Some(match name {
        b"type" => (local_name!("type"), "input"),
        b"href" => (local_name!("href"), "base"),
        b"color" => (local_name!("color"), "font"),
        b"face" => (local_name!("face"), "font"),
        b"size" => (local_name!("size"), "font"),
        b"shadowrootmode" => (local_name!("shadowrootmode"), "template"),
        b"encoding" => (local_name!("encoding"), "annotation-xml"),
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
const SLOT_BITS: u32 = 11;

/// The multiplier of [`slot`], chosen so that no two names of [`TagId`]
/// of at most eight bytes share a slot ([`SLOTS`] fails to compile if they do).
const MULTIPLIER: u64 = 0xceaf_4915_8885_64e9;

/// The slot of a key: the top bits of its product with [`MULTIPLIER`].
const fn slot(key: u64) -> usize {
    (key.wrapping_mul(MULTIPLIER) >> (64 - SLOT_BITS)) as usize
}

/// For each slot, the [`TagId`] of the name of at most eight bytes whose
/// key falls there, or [`TagId::Other`]: a perfect hash of the names.
static SLOTS: [TagId; 1 << SLOT_BITS] = {
    let mut slots = [TagId::Other; 1 << SLOT_BITS];
    let mut i = 1;
    while i < TagId::NAMES.len() {
        let name = TagId::NAMES[i].as_bytes();
        if name.len() <= 8 {
            let at = slot(name_key(name));
            assert!(
                matches!(slots[at], TagId::Other),
                "two tag names share a slot: change MULTIPLIER"
            );
            slots[at] = TagId::ALL[i];
        }
        i += 1;
    }
    slots
};

/// The keys ([`name_key`]) of [`TagId::NAMES`], to check a slot's name.
static KEYS: [u64; TagId::ALL.len()] = {
    let mut keys = [0; TagId::ALL.len()];
    let mut i = 1;
    while i < keys.len() {
        keys[i] = name_key(TagId::NAMES[i].as_bytes());
        i += 1;
    }
    keys
};

/// Defines [`TagId`] over the names given, its atoms and the `tag!` macro.
macro_rules! tag_ids {
    ($($id:ident = $name:tt,)*) => {
        /// A tag name as a small number: each name the tracker's rules, its
        /// tag sets or the common pages name, [`TagId::Other`] for the rest
        /// (custom elements, rare ones), told from each other by their atoms.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum TagId {
            /// A name not listed.
            Other,
            $(
                #[allow(missing_docs)]
                $id,
            )*
        }

        impl TagId {
            /// Every id, in order of their numbers.
            pub const ALL: &[TagId] = &[TagId::Other, $(TagId::$id,)*];
            /// The name of each id ("" for [`TagId::Other`]).
            pub const NAMES: &[&str] = &["", $($name,)*];
        }

        /// The static atom of each id's name.
        static ATOMS: &[LocalName] = &[local_name!(""), $(local_name!($name),)*];

        /// The [`TagId`] of a listed name, as a constant or a pattern.
        macro_rules! tag {
            $(($name) => { $crate::html::tokenizer::TagId::$id };)*
        }
        pub(crate) use tag;
    };
}

tag_ids! {
    A = "a",
    Abbr = "abbr",
    Address = "address",
    AnnotationXml = "annotation-xml",
    Applet = "applet",
    Area = "area",
    Article = "article",
    Aside = "aside",
    Audio = "audio",
    B = "b",
    Base = "base",
    Basefont = "basefont",
    Bdi = "bdi",
    Bdo = "bdo",
    Bgsound = "bgsound",
    Big = "big",
    Blockquote = "blockquote",
    Body = "body",
    Br = "br",
    Button = "button",
    Canvas = "canvas",
    Caption = "caption",
    Center = "center",
    Circle = "circle",
    Cite = "cite",
    Clippath = "clippath",
    Code = "code",
    Col = "col",
    Colgroup = "colgroup",
    Data = "data",
    Datalist = "datalist",
    Dd = "dd",
    Defs = "defs",
    Del = "del",
    Desc = "desc",
    Details = "details",
    Dfn = "dfn",
    Dialog = "dialog",
    Dir = "dir",
    Div = "div",
    Dl = "dl",
    Dt = "dt",
    Ellipse = "ellipse",
    Em = "em",
    Embed = "embed",
    Fieldset = "fieldset",
    Figcaption = "figcaption",
    Figure = "figure",
    Font = "font",
    Footer = "footer",
    Foreignobject = "foreignobject",
    Form = "form",
    Frame = "frame",
    Frameset = "frameset",
    G = "g",
    H1 = "h1",
    H2 = "h2",
    H3 = "h3",
    H4 = "h4",
    H5 = "h5",
    H6 = "h6",
    Head = "head",
    Header = "header",
    Hgroup = "hgroup",
    Hr = "hr",
    Html = "html",
    I = "i",
    Iframe = "iframe",
    Image = "image",
    Img = "img",
    Input = "input",
    Ins = "ins",
    Isindex = "isindex",
    Kbd = "kbd",
    Keygen = "keygen",
    Label = "label",
    Legend = "legend",
    Li = "li",
    Line = "line",
    Link = "link",
    Listing = "listing",
    Main = "main",
    Malignmark = "malignmark",
    Map = "map",
    Mark = "mark",
    Marquee = "marquee",
    Math = "math",
    Menu = "menu",
    Meta = "meta",
    Meter = "meter",
    Mglyph = "mglyph",
    Mi = "mi",
    Mn = "mn",
    Mo = "mo",
    Ms = "ms",
    Mtext = "mtext",
    Nav = "nav",
    Nobr = "nobr",
    Noembed = "noembed",
    Noframes = "noframes",
    Noscript = "noscript",
    Object = "object",
    Ol = "ol",
    Optgroup = "optgroup",
    Option = "option",
    Output = "output",
    P = "p",
    Param = "param",
    Path = "path",
    Picture = "picture",
    Plaintext = "plaintext",
    Polygon = "polygon",
    Polyline = "polyline",
    Pre = "pre",
    Progress = "progress",
    Q = "q",
    Rb = "rb",
    Rect = "rect",
    Rp = "rp",
    Rt = "rt",
    Rtc = "rtc",
    Ruby = "ruby",
    S = "s",
    Samp = "samp",
    Script = "script",
    Search = "search",
    Section = "section",
    Select = "select",
    Slot = "slot",
    Small = "small",
    Source = "source",
    Span = "span",
    Stop = "stop",
    Strike = "strike",
    Strong = "strong",
    Style = "style",
    Sub = "sub",
    Summary = "summary",
    Sup = "sup",
    Svg = "svg",
    Symbol = "symbol",
    Table = "table",
    Tbody = "tbody",
    Td = "td",
    Template = "template",
    Text = "text",
    Textarea = "textarea",
    Tfoot = "tfoot",
    Th = "th",
    Thead = "thead",
    Time = "time",
    Title = "title",
    Tr = "tr",
    Track = "track",
    Tspan = "tspan",
    Tt = "tt",
    U = "u",
    Ul = "ul",
    Use = "use",
    Var = "var",
    Video = "video",
    Wbr = "wbr",
    Xmp = "xmp",
}

impl TagId {
    /// The id of a tag name as the tokenizer gives it (lower case).
    #[inline]
    pub fn of(name: &str) -> TagId {
        let bytes = name.as_bytes();
        if bytes.len() <= 8 {
            let key = short_name_key(bytes);
            let id = SLOTS[slot(key)];
            // [`TagId::Other`]'s key is 0, the empty name's, which is no listed one.
            if KEYS[id as usize] == key {
                return id;
            }
            return TagId::Other;
        }
        long_tag_id(name)
    }

    /// [`TagId::of`] the name `input[start..end]`, as the tokenizer gives it
    /// (lower case), just scanned: a name of up to eight bytes is one load
    /// of the word it starts, masked to its length.
    #[inline(always)]
    pub(super) fn of_source(input: &str, start: usize, end: usize) -> TagId {
        let len = end.wrapping_sub(start);
        let word = input
            .as_bytes()
            .get(start..)
            .and_then(<[u8]>::first_chunk::<8>);
        if let (1..=8, Some(word)) = (len, word) {
            let key = u64::from_le_bytes(*word) & (u64::MAX >> (64 - 8 * len));
            let id = SLOTS[slot(key)];
            return if KEYS[id as usize] == key {
                id
            } else {
                TagId::Other
            };
        }
        TagId::of(input.get(start..end).unwrap_or_default())
    }

    /// The static atom of a listed name ([`TagId::Other`]'s is the empty name).
    #[inline]
    pub fn atom(self) -> LocalName {
        ATOMS[self as usize].clone()
    }
}

/// [`TagId::of`] a name of more than eight bytes.
#[inline(never)]
fn long_tag_id(name: &str) -> TagId {
    match name {
        "annotation-xml" => tag!("annotation-xml"),
        "blockquote" => tag!("blockquote"),
        "figcaption" => tag!("figcaption"),
        "foreignobject" => tag!("foreignobject"),
        "malignmark" => tag!("malignmark"),
        "plaintext" => tag!("plaintext"),
        _ => TagId::Other,
    }
}

/// The atom of a tag name of id `id` (as [`TagId::of`] gives it).
#[inline]
pub(super) fn tag_atom_of(id: TagId, name: &str) -> LocalName {
    match id {
        TagId::Other => LocalName::from(name),
        id => id.atom(),
    }
}

/// The atom of a tag name.
#[cfg_attr(not(test), allow(dead_code))]
pub(super) fn tag_atom(name: &str) -> LocalName {
    tag_atom_of(TagId::of(name), name)
}

#[cfg(test)]
mod tests {
    use super::TagId;

    #[test]
    fn a_name_read_from_its_source_has_the_id_of_its_text() {
        let others = [
            "x-custom",
            "di",
            "divv",
            "custom-element",
            "blockquotes",
            "é",
        ];
        let names = TagId::NAMES.iter().skip(1).chain(&others);
        for name in names {
            // After the name: enough bytes for a word, too few, none.
            for after in [" class=x>text", ">", ""] {
                let input = format!("<{name}{after}");
                let end = 1 + name.len();
                assert_eq!(
                    TagId::of_source(&input, 1, end),
                    TagId::of(name),
                    "{input:?}"
                );
            }
        }
    }
}
