//! WAT files: the link rows of a run written as Common Crawl writes the
//! metadata of its crawls, for the readers that already read those.
//!
//! A WAT file is what Common Crawl publishes beside its WARC files: a WARC
//! of `metadata` records, each its own gzip member, whose JSON block
//! describes one record of the source archive (`Envelope` →
//! `WARC-Header-Metadata`, `Payload-Metadata` → `HTTP-Response-Metadata` →
//! `HTML-Metadata` → `Head` and `Links`). relink writes the same keys for
//! what it knows of a record, and adds its own: each link's resolved URL
//! (`abs`), the base it was resolved against and where that base came
//! from (`base`, `base_from`). A link's `url` stays as written (character
//! references decoded, as Common Crawl's extractor gives it), so that a
//! reader that resolves it itself gets what a Common Crawl WAT gives it;
//! every link that extractor lists is listed, also those relink never
//! rewrites (`data-href`, URLs in `onclick`: [`HtmlHead::listed`]).
//!
//! [`WatWriter`] is fed what [`Rewriter::run`](crate::Rewriter::run) hands
//! over ([`Event`]s, or their rows and units), a unit (document, message
//! or record) at a time; [`warcinfo`] writes the file's leading record.
//! The command line's `--list --format wat`, the Python package's `wat`
//! and the Spark job all write through them.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::Arc;

use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use serde_json::{Map, Value, json};

use crate::base::BaseSource;
use crate::compressed::Deflater;
use crate::error::Error;
use crate::front::{Event, Unit};
use crate::links::{
    HtmlHead, HttpEntity, Link, LinkPlace, LinkRow, RecordBlock, RecordHeads, RecordName, UnitKey,
    Warning, WarningKind,
};
use crate::rows::{base_from, json_string, needs_escape};
use crate::url::BaseUrl;

/// Where the WAT records of a non-archive input say they come from, and
/// how their links' bases are named.
#[derive(Debug, Clone)]
struct Source {
    /// The input as messages name it (its path).
    name: String,
    /// The URL it was retrieved from, if given.
    url: Option<String>,
}

/// The writer of a WAT file's `metadata` records: fed the rows and units
/// of one input as [`Rewriter::run`](crate::Rewriter::run) hands them
/// over, it writes one record a unit (a document, a message of an mbox, a
/// record of an archive), each its own gzip member, once the unit is
/// done. One unit is held at a time, so memory is bounded as the rows
/// are.
///
/// Run with [`Details::Attributes`](crate::options::Details::Attributes): a link
/// then carries its element's other attributes (`rel`, `type`, `alt`...)
/// and its text, a record its heads, a page its title and metas, as a
/// Common Crawl WAT record has them.
///
/// ```
/// use relink::wat::{WatWriter, warcinfo};
/// use relink::{Details, Input, Output, Rewriter};
/// let mut wat = Vec::new();
/// warcinfo(&mut wat, &["page.html"])?;
/// let mut writer = WatWriter::new("page.html").retrieved_from("http://a/b/c");
/// let page = b"<title>Home</title><base href=/d/><a href=x rel=next>x</a>";
/// Rewriter::new().retrieved_from("http://a/b/c").details(Details::Attributes).run(
///     Input::bytes(page),
///     Output::Nowhere,
///     &mut |event| Ok(writer.event(&mut wat, &event)?),
/// )?;
/// writer.finish(&mut wat)?;
/// assert_eq!(writer.records(), 1);
/// // Two gzip members, the second a WARC record with the page's links.
/// let mut text = String::new();
/// std::io::Read::read_to_string(&mut flate2::read::MultiGzDecoder::new(&wat[..]), &mut text)?;
/// let block = text.split("\r\n\r\n").nth(3).unwrap();
/// let json: serde_json::Value = serde_json::from_str(block)?;
/// let html = &json["Envelope"]["Payload-Metadata"]["HTTP-Response-Metadata"]["HTML-Metadata"];
/// assert_eq!(html["Head"]["Title"], "Home");
/// assert_eq!(html["Head"]["Base"], "/d/");
/// assert_eq!(html["Links"][0]["path"], "A@/href");
/// assert_eq!(html["Links"][0]["url"], "x");
/// assert_eq!(html["Links"][0]["abs"], "http://a/d/x");
/// assert_eq!(html["Links"][0]["rel"], "next");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct WatWriter {
    source: Source,
    pending: Option<WatUnit>,
    /// How many `metadata` records were written.
    written: usize,
    /// What was left out, not yet taken.
    warnings: Vec<Warning>,
    /// The compressor of every record, reset between them, and the
    /// buffers a record is gathered in.
    scratch: Scratch,
}

/// What a writer of WAT records keeps from one record to the next: the
/// compressor, and the buffer a record goes through on its way to it (a
/// `BufWriter`'s 64 KiB, allocated and freed for each record before).
/// The link arrays' buffers are not kept: handed to the next record's
/// arrays, a large one held by a small array, they made the run 4% slower
/// and its peak 2.4 MiB higher.
#[derive(Debug, Default)]
struct Scratch {
    deflater: Deflater,
    staged: Vec<u8>,
}

impl WatWriter {
    /// A writer for the input named `name` (its path, as messages name
    /// it): the target URI of its records when it is no archive and has no
    /// retrieval URL, and the seed of their record IDs, so that the same
    /// input gives the same IDs.
    pub fn new(name: impl Into<String>) -> WatWriter {
        WatWriter {
            source: Source {
                name: name.into(),
                url: None,
            },
            pending: None,
            written: 0,
            warnings: Vec::new(),
            scratch: Scratch::default(),
        }
    }

    /// How many `metadata` records it has written.
    pub fn records(&self) -> usize {
        self.written
    }

    /// The warnings of the records it left out since it was last asked: a
    /// response record with no `WARC-Target-URI` gets no WAT record, as
    /// Common Crawl's extractor writes none for it.
    pub fn take_warnings(&mut self) -> Vec<Warning> {
        std::mem::take(&mut self.warnings)
    }

    /// Writes `unit`'s record, or leaves it out with a warning.
    fn emit(&mut self, out: &mut (impl Write + ?Sized), unit: WatUnit) -> Result<(), Error> {
        if let Some(warning) = unit.left_out() {
            self.warnings.push(warning);
            return Ok(());
        }
        self.written += 1;
        unit.write(out, &mut self.scratch)
    }

    /// The URL the input was retrieved from: the target URI of the
    /// records of an input that is no archive (a page, a message, an
    /// mbox).
    pub fn retrieved_from(mut self, url: impl Into<String>) -> WatWriter {
        self.source.url = Some(url.into());
        self
    }

    /// Takes one event of a run: its rows, and each unit done. Other
    /// events write nothing.
    pub fn event(
        &mut self,
        out: &mut (impl Write + ?Sized),
        event: &Event<'_>,
    ) -> Result<(), Error> {
        match event {
            Event::Rows(rows) => self.rows(out, rows),
            Event::Done(done) => self.done(out, &done.unit, done.head),
            _ => Ok(()),
        }
    }

    /// Takes rows; writes the WAT record of each unit they finish.
    pub fn rows(&mut self, out: &mut (impl Write + ?Sized), rows: &[LinkRow]) -> Result<(), Error> {
        for row in rows {
            self.unit(out, row.message, row.record.as_deref())?
                .push(row)?;
        }
        Ok(())
    }

    /// The unit of a message or record being gathered: the pending one,
    /// or a new one once the pending one, another, is written.
    fn unit(
        &mut self,
        out: &mut (impl Write + ?Sized),
        message: Option<usize>,
        record: Option<&RecordName>,
    ) -> Result<&mut WatUnit, Error> {
        if self
            .pending
            .as_ref()
            .is_some_and(|u| !u.key.is(message, record))
        {
            self.finish(out)?;
        }
        let source = &self.source;
        Ok(self
            .pending
            .get_or_insert_with(|| WatUnit::new(source, message, record)))
    }

    /// Takes a unit done: writes its WAT record, with the heads its name
    /// carries and its HTML head's title and metas, whether or not it had
    /// links (Common Crawl writes one for each record).
    pub fn done(
        &mut self,
        out: &mut (impl Write + ?Sized),
        unit: &Unit,
        html: Option<&HtmlHead>,
    ) -> Result<(), Error> {
        let (message, record) = match unit {
            Unit::Document => (None, None),
            Unit::Message(n) => (Some(*n), None),
            Unit::Record(name) => (None, Some(&**name)),
        };
        self.unit(out, message, record)?;
        let Some(mut pending) = self.pending.take() else {
            return Ok(());
        };
        if let Some(record) = record {
            // The name a unit's rows carry may have no heads (a record
            // read in memory): the one it is done with has.
            pending.heads.clone_from(&record.heads);
        }
        if let Some(html) = html {
            pending.title.clone_from(&html.title);
            // Held as JSON text, as the links are: a page of many metas
            // would otherwise hold a map of its own for each.
            for meta in &html.metas {
                let mut fields: Vec<(&str, Option<&str>)> =
                    meta.iter().map(|(n, v)| (*n, Some(v.as_str()))).collect();
                pending.metas.push_with(|text| {
                    write_object(text, &mut fields);
                    Ok(())
                })?;
            }
            for link in &html.listed {
                pending.push_listed(link)?;
            }
        }
        self.emit(out, pending)
    }

    /// Writes the pending unit's WAT record, if any: call it once the run
    /// is done, for a unit whose rows came but no [`Event::Done`].
    pub fn finish(&mut self, out: &mut (impl Write + ?Sized)) -> Result<(), Error> {
        match self.pending.take() {
            Some(unit) => self.emit(out, unit),
            None => Ok(()),
        }
    }
}

/// The WAT record being gathered for one unit: its target and its links,
/// written once the unit is done.
#[derive(Debug)]
struct WatUnit {
    /// The mbox message or archive record it is.
    key: UnitKey,
    /// The source record's `WARC-Header-Metadata`, as far as its name
    /// tells it.
    header: Map<String, Value>,
    /// The source record's heads, when they were kept.
    heads: Option<Arc<RecordHeads>>,
    /// The record's name for the record ID: the input and the unit.
    name: String,
    /// The input's file name, as a WAT record's `Container` names it.
    file: String,
    base: Option<String>,
    /// The HTML head's `Title`, `Metas` and `Scripts`.
    title: Option<String>,
    metas: JsonArray,
    scripts: JsonArray,
    head_links: JsonArray,
    links: JsonArray,
    /// relink's links that no HTML element of the page holds (see
    /// [`relinks_own`]), under `Relink-Links`.
    own_links: JsonArray,
    /// Whether the record's payload is an HTML page by its media type
    /// (`text/html`, `application/xhtml+xml`, or none given).
    html: bool,
    base_from: BaseNames,
}

impl WatUnit {
    fn new(source: &Source, message: Option<usize>, record: Option<&RecordName>) -> WatUnit {
        let mut header = Map::new();
        let name = match record {
            Some(record) => {
                header.insert("WARC-Type".into(), record.record_type.clone().into());
                header.insert("WARC-Target-URI".into(), record.target_uri.clone().into());
                if !record.record_id.is_empty() {
                    header.insert("WARC-Record-ID".into(), record.record_id.clone().into());
                }
                format!("{}\0record {}", source.name, record.number)
            }
            None => {
                // A file is no HTTP response: WARC calls it a resource.
                header.insert("WARC-Type".into(), "resource".into());
                let target = source.url.as_deref().unwrap_or(&source.name);
                header.insert("WARC-Target-URI".into(), target.into());
                match message {
                    Some(n) => format!("{}\0message {n}", source.name),
                    None => source.name.clone(),
                }
            }
        };
        WatUnit {
            key: UnitKey::new(message, record),
            header,
            heads: record.and_then(|r| r.heads.clone()),
            name,
            file: source
                .name
                .rsplit(['/', '\\'])
                .next()
                .unwrap_or_default()
                .to_owned(),
            base: None,
            title: None,
            metas: JsonArray::default(),
            scripts: JsonArray::default(),
            head_links: JsonArray::default(),
            links: JsonArray::default(),
            own_links: JsonArray::default(),
            html: record
                .and_then(|r| r.heads.as_deref())
                .is_none_or(|h| is_html(&h.http)),
            base_from: BaseNames::default(),
        }
    }

    /// One row as a WAT link: Common Crawl's `path` and `url` (as
    /// written), and relink's `abs`, `base` and `base_from`. The first
    /// `<base href>` is the head's `Base` instead, as Common Crawl writes
    /// it; `<link>` goes to the head's `Link`, `<script src>` to its
    /// `Scripts`, as Common Crawl puts them.
    fn push(&mut self, row: &LinkRow) -> io::Result<()> {
        let link = &row.link;
        let place = &link.place;
        if self.base.is_none() && is_attribute(place, "base", "href") {
            self.base = Some(link.original.clone());
            return Ok(());
        }
        let list = if relinks_own(place, self.html) {
            &mut self.own_links
        } else if place.element().eq_ignore_ascii_case("link") {
            &mut self.head_links
        } else if is_attribute(place, "script", "src") {
            &mut self.scripts
        } else {
            &mut self.links
        };
        // relink's: the MIME part of a message it is in.
        let part = row.part.as_deref().filter(|p| !p.is_empty());
        let base = self.base_from.of(link);
        list.push_with(|text| {
            write_link_entry(text, link, (true, part), base);
            Ok(())
        })
    }

    /// A link a WAT file lists that relink does not rewrite (`data-href`,
    /// a URL in `onclick`...): in `Links`, where Common Crawl's readers
    /// take it, after the links of the page's rows.
    fn push_listed(&mut self, link: &Link) -> io::Result<()> {
        let base = self.base_from.of(link);
        self.links.push_with(|text| {
            write_link_entry(text, link, (false, None), base);
            Ok(())
        })
    }

    /// A field of the source record's head, as far as its name tells it.
    fn field(&self, name: &str) -> Option<&str> {
        self.header.get(name).and_then(Value::as_str)
    }

    /// Why the unit gets no WAT record, if it gets none: a response
    /// record with no target URI.
    fn left_out(&self) -> Option<Warning> {
        let (number, id) = self.key.record.as_ref()?;
        let response = self
            .field("WARC-Type")
            .is_some_and(|t| t.eq_ignore_ascii_case("response"));
        let target = self
            .field("WARC-Target-URI")
            .is_some_and(|t| !t.trim().is_empty());
        (response && !target).then(|| {
            let message = "response with no WARC-Target-URI: no WAT record";
            let warning = Warning::new(WarningKind::Malformed, message);
            match id.is_empty() {
                true => warning.within(format!("record {number}")),
                false => warning.within(format!("record {number} {id}")),
            }
        })
    }

    /// The unit's WAT record, one gzip member.
    fn write(self, out: &mut (impl Write + ?Sized), scratch: &mut Scratch) -> Result<(), Error> {
        let refers_to = self.field("WARC-Record-ID").map(str::to_owned);
        let target = self.field("WARC-Target-URI").filter(|t| !t.is_empty());
        let target = target.map(str::to_owned);
        let name = record_id(&self.name);
        // Dated as its source record is (as Common Crawl's are), so that
        // the same input gives the same bytes: never the clock.
        let kept = self.heads.as_deref().and_then(|h| {
            let mut fields = h.warc.iter();
            fields.find(|(n, _)| n.eq_ignore_ascii_case("WARC-Date"))
        });
        let date = kept.map(|(_, v)| v.as_str());
        let date = match date.or_else(|| self.field("WARC-Date")) {
            Some(date) if looks_like_a_warc_date(date) => date.to_owned(),
            _ => undated(),
        };
        let block = self.block().rendered()?;
        let mut fields = vec![("WARC-Type", "metadata".to_owned())];
        if let Some(target) = target {
            fields.push(("WARC-Target-URI", target));
        }
        fields.push(("WARC-Date", date));
        fields.push(("WARC-Record-ID", name));
        if let Some(id) = refers_to {
            fields.push(("WARC-Refers-To", id));
        }
        fields.push(("Content-Type", "application/json".to_owned()));
        let length = block.len();
        let Scratch {
            deflater, staged, ..
        } = scratch;
        write_record((out, deflater, staged), &fields, length, |out| {
            let mut counted = Count(0, out);
            block.write(&mut counted)?;
            match counted.0 == length {
                true => Ok(()),
                // A record whose length lies would corrupt the file.
                false => Err(io::Error::other("wat block length miscounted")),
            }
        })?;
        Ok(())
    }

    /// The unit's JSON block: the source record's head (every field of
    /// it when its heads were kept) and its block's media type, its HTTP
    /// response's status line and fields and, when the block is whole, the
    /// lengths and digest of its message, and `HTML-Metadata` when it has
    /// links.
    fn block(self) -> Node {
        let mut header = Map::new();
        let mut response = Map::new();
        let mut payload = Map::new();
        let mut envelope = Map::new();
        // A WARC record's version line as written (`WARC/1.0`); `WARC`
        // when there is none (a file, an ARC record).
        let version = self.heads.as_deref().and_then(|h| h.version.as_deref());
        envelope.insert("Format".into(), version.unwrap_or("WARC").into());
        if let Some(block) = self.heads.as_deref().and_then(|h| h.block.as_ref()) {
            block_fields(&mut envelope, &mut payload, block);
        }
        if let Some(heads) = &self.heads {
            // Every field of the source record's head, as Common Crawl
            // keeps them; the HTTP head's status line and fields.
            header = joined(&heads.warc);
            unbracket_target(&mut header);
            if let Some(line) = &heads.start_line {
                // What the block was read as, named as Common Crawl's
                // reader names it whatever the record's head spells.
                let (key, message, media) = start_line(line, is_request(&header));
                response.insert(key.into(), message);
                response.insert("Headers".into(), joined(&heads.http).into());
                let media = format!("application/http; msgtype={media}");
                payload.insert("Actual-Content-Type".into(), media.into());
            }
            if let Some(entity) = &heads.entity {
                entity_fields(&mut response, entity);
            }
        }
        // The fields of the head as written come first; those the record's
        // name tells fill in what the head lacks.
        for (name, value) in self.header {
            if value.as_str().is_none_or(|v| !v.is_empty()) && !header.contains_key(&name) {
                header.insert(name, value);
            }
        }
        let mut head = Node::map(Map::new());
        if let Some(title) = self.title {
            head.insert("Title", Node::Value(title.into()));
        }
        if let Some(base) = self.base {
            head.insert("Base", Node::Value(base.into()));
        }
        let arrays = [
            ("Metas", self.metas),
            ("Link", self.head_links),
            ("Scripts", self.scripts),
        ];
        for (key, array) in arrays.into_iter().filter(|(_, array)| !array.is_empty()) {
            head.insert(key, Node::Array(array));
        }
        let mut response = Node::map(response);
        if !head.is_empty() || !self.links.is_empty() || !self.own_links.is_empty() {
            let own = (!self.own_links.is_empty()).then_some(self.own_links);
            let mut html = Node::map(Map::new());
            html.insert("Head", head);
            html.insert("Links", Node::Array(self.links));
            if let Some(own) = own {
                html.insert("Relink-Links", Node::Array(own));
            }
            response.insert("HTML-Metadata", html);
        }
        let mut envelope = Node::map(envelope);
        let mut payload = Node::map(payload);
        if !response.is_empty() {
            let key = match is_request(&header) {
                true => "HTTP-Request-Metadata",
                false => "HTTP-Response-Metadata",
            };
            payload.insert(key, response);
        }
        envelope.insert("WARC-Header-Metadata", Node::Value(header.into()));
        envelope.insert("Payload-Metadata", payload);
        if let Some(n) = self.key.message {
            // relink's: which message of an mbox.
            envelope.insert("Message-Number", Node::Value(n.into()));
        }
        let mut record = Node::map(Map::new());
        let block = self.heads.as_deref().and_then(|h| h.block.as_ref());
        if let Some((offset, compressed)) = block.and_then(|b| Some((b.offset?, b.compressed))) {
            // Where the source record is, its offset a string as Common
            // Crawl writes it.
            let container = json!({"Filename": self.file, "Compressed": compressed, "Offset": offset.to_string()});
            record.insert("Container", Node::Value(container));
        }
        record.insert("Envelope", envelope);
        record
    }
}

/// A JSON array written as its elements come: a unit's links are held as
/// their JSON text (about a hundred bytes a link), not as values (each a
/// map of its own), and past [`JsonArray::SPILL`] bytes compressed, so that a
/// record of many links is held in a fraction of its size.
#[derive(Debug, Default)]
struct JsonArray {
    /// The latest elements' text, comma-separated.
    text: Vec<u8>,
    /// The text before it, compressed (boxed: a compressor is large, and
    /// most arrays never need one).
    packed: Option<Box<DeflateEncoder<Vec<u8>>>>,
    /// The length of the elements' text, both parts.
    len: usize,
}

impl JsonArray {
    /// How much text is held as it is before it is compressed: 1 MiB, past
    /// nearly every page's links (at 256 KiB, compressing twelve records'
    /// links of the crawl archive and inflating them again was 4% of its
    /// WAT file).
    const SPILL: usize = 1 << 20;

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds the element that `write` writes as JSON text.
    fn push_with(&mut self, write: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> io::Result<()> {
        let start = self.text.len();
        if !self.is_empty() {
            self.text.push(b',');
        }
        write(&mut self.text)?;
        self.len += self.text.len() - start;
        if self.text.len() >= JsonArray::SPILL {
            let packed = self.packed.get_or_insert_with(|| {
                Box::new(DeflateEncoder::new(Vec::new(), Compression::fast()))
            });
            packed.write_all(&self.text)?;
            self.text.clear();
        }
        Ok(())
    }

    /// Writes the array, `[` to `]`.
    fn write(self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(b"[")?;
        if let Some(packed) = self.packed {
            let packed = packed.finish()?;
            io::copy(&mut DeflateDecoder::new(&packed[..]), out)?;
        }
        out.write_all(&self.text)?;
        out.write_all(b"]")
    }
}

/// A WAT record's JSON block as it is put together: objects whose members
/// are values, link arrays ([`JsonArray`]), or objects again. Written as
/// [`Value`] writes itself, compact, an object's keys in order.
#[derive(Debug)]
enum Node {
    Value(Value),
    Array(JsonArray),
    Object(BTreeMap<String, Node>),
}

impl Node {
    /// An object of `map`'s members.
    fn map(map: Map<String, Value>) -> Node {
        Node::Object(map.into_iter().map(|(k, v)| (k, Node::Value(v))).collect())
    }

    fn insert(&mut self, key: &str, node: Node) {
        if let Node::Object(map) = self {
            map.insert(key.to_owned(), node);
        }
    }

    fn is_empty(&self) -> bool {
        matches!(self, Node::Object(map) if map.is_empty())
    }

    /// Its JSON text, written once: the text around its arrays, and the
    /// arrays where they go.
    fn rendered(self) -> io::Result<Rendered> {
        let mut rendered = Rendered {
            text: Vec::with_capacity(4096),
            arrays: Vec::new(),
        };
        self.render(&mut rendered)?;
        Ok(rendered)
    }

    fn render(self, into: &mut Rendered) -> io::Result<()> {
        match self {
            Node::Value(value) => write_value(&mut into.text, &value)?,
            Node::Array(array) => into.arrays.push((into.text.len(), array)),
            Node::Object(map) => {
                into.text.push(b'{');
                for (n, (key, node)) in map.into_iter().enumerate() {
                    if n > 0 {
                        into.text.push(b',');
                    }
                    json_string(&mut into.text, &key);
                    into.text.push(b':');
                    node.render(into)?;
                }
                into.text.push(b'}');
            }
        }
        Ok(())
    }
}

/// `value` as `serde_json` writes it, compact, its strings (a record's
/// head fields, most of its block) written straight when nothing in them
/// is escaped.
fn write_value(out: &mut Vec<u8>, value: &Value) -> io::Result<()> {
    match value {
        Value::String(text) => json_string(out, text),
        Value::Object(map) => {
            out.push(b'{');
            for (n, (key, value)) in map.iter().enumerate() {
                if n > 0 {
                    out.push(b',');
                }
                json_string(out, key);
                out.push(b':');
                write_value(out, value)?;
            }
            out.push(b'}');
        }
        Value::Array(values) => {
            out.push(b'[');
            for (n, value) in values.iter().enumerate() {
                if n > 0 {
                    out.push(b',');
                }
                write_value(out, value)?;
            }
            out.push(b']');
        }
        _ => serde_json::to_writer(&mut *out, value)?,
    }
    Ok(())
}

/// A WAT record's JSON block made text but for its link arrays, held as
/// they were gathered: its length known for the record's head before a
/// byte of it is written, each value serialised once.
struct Rendered {
    /// The text around the arrays.
    text: Vec<u8>,
    /// Each array, and where in the text it goes.
    arrays: Vec<(usize, JsonArray)>,
}

impl Rendered {
    /// The length of its JSON text, for the record's `Content-Length`.
    fn len(&self) -> usize {
        let arrays = self.arrays.iter().map(|(_, array)| array.len + 2);
        self.text.len() + arrays.sum::<usize>()
    }

    /// Writes its JSON text.
    fn write(self, out: &mut impl Write) -> io::Result<()> {
        let mut written = 0;
        for (at, array) in self.arrays {
            out.write_all(&self.text[written..at])?;
            array.write(out)?;
            written = at;
        }
        out.write_all(&self.text[written..])
    }
}

/// A writer that counts what it passes on.
struct Count<W>(usize, W);

impl<W: Write> Write for Count<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.1.write(buf)?;
        self.0 += n;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.1.flush()
    }
}

/// The last base named, kept: the links of a document mostly share one
/// base, and naming it formats it and writing it escapes it.
#[derive(Debug, Default)]
struct BaseNames {
    last: Option<NamedBase>,
}

/// A base as a WAT entry names it.
#[derive(Debug)]
struct NamedBase {
    source: Option<BaseSource>,
    url: Option<String>,
    /// Its `base_from`.
    name: String,
    /// `"base":URL,"base_from":NAME`, as JSON text.
    json: Vec<u8>,
}

impl BaseNames {
    /// `base_from` of `link`'s base, and the JSON text of its `base` and
    /// `base_from`.
    fn of(&mut self, link: &Link) -> (&str, &[u8]) {
        let source = link.base.as_ref().map(|b| &b.source);
        let url = link.base.as_ref().map(|b| b.url.as_str());
        let same = |last: &NamedBase| last.source.as_ref() == source && last.url.as_deref() == url;
        if !self.last.as_ref().is_some_and(same) {
            let name = base_from(link);
            let mut json = b"\"base\":".to_vec();
            match url {
                Some(url) => json_string(&mut json, url),
                None => json.extend_from_slice(b"null"),
            }
            json.extend_from_slice(b",\"base_from\":");
            json_string(&mut json, &name);
            let (source, url) = (source.cloned(), url.map(str::to_owned));
            self.last = Some(NamedBase {
                source,
                url,
                name,
                json,
            });
        }
        self.last
            .as_ref()
            .map_or(("", &[]), |last| (&last.name, &last.json))
    }
}

/// A head's fields as a WAT record's object of them: a field named twice
/// has its values joined with `, ` (RFC 9110 section 5.3).
fn joined(fields: &[(String, String)]) -> Map<String, Value> {
    let mut map = Map::new();
    for (name, value) in fields {
        match map.get_mut(name) {
            Some(Value::String(before)) => {
                before.push_str(", ");
                before.push_str(value);
            }
            _ => {
                map.insert(name.clone(), value.as_str().into());
            }
        }
    }
    map
}

/// A `WARC-Target-URI` written in angle brackets (as WARC/1.0's grammar
/// shows it, and wget and others write it) out of them: WAT readers take
/// the field as the URL itself (cc-pyspark builds `<http:...` links and
/// hosts from it otherwise), and WARC/1.1 writes it bare. Common Crawl's
/// extractor keeps the brackets.
fn unbracket_target(header: &mut Map<String, Value>) {
    if let Some(Value::String(target)) = header.get_mut("WARC-Target-URI")
        && let Some(bare) = target.strip_prefix('<').and_then(|t| t.strip_suffix('>'))
    {
        *target = bare.to_owned();
    }
}

/// What a WAT record says of a response's message as it lies in the
/// block: `Headers-Length`, `Entity-Length`, `Entity-Digest` and
/// `Entity-Trailing-Slop-Length`, numbers
/// written as strings, as Common Crawl writes them.
fn entity_fields(response: &mut Map<String, Value>, entity: &HttpEntity) {
    let length = |n: usize| Value::from(n.to_string());
    response.insert("Headers-Length".into(), length(entity.headers_length));
    response.insert("Entity-Length".into(), length(entity.length));
    response.insert("Entity-Digest".into(), entity.digest.as_str().into());
    let slop = length(entity.trailing_slop);
    response.insert("Entity-Trailing-Slop-Length".into(), slop);
}

/// What a WAT record says of the source record as it lies in its file:
/// `WARC-Header-Length` in the envelope; `Actual-Content-Length`,
/// `Trailing-Slop-Length` and `Block-Digest` in `Payload-Metadata`,
/// numbers written as strings, as Common Crawl writes them.
fn block_fields(
    envelope: &mut Map<String, Value>,
    payload: &mut Map<String, Value>,
    block: &RecordBlock,
) {
    let length = |n: usize| Value::from(n.to_string());
    envelope.insert("WARC-Header-Length".into(), length(block.header_length));
    payload.insert("Actual-Content-Length".into(), length(block.length));
    payload.insert("Trailing-Slop-Length".into(), length(block.trailing_slop));
    payload.insert("Block-Digest".into(), block.digest.as_str().into());
}

/// Whether a record's `WARC-Header-Metadata` is a `request` record's.
fn is_request(header: &Map<String, Value>) -> bool {
    header
        .get("WARC-Type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.eq_ignore_ascii_case("request"))
}

/// A request line as a WAT record's `Request-Message` has it (`Method`,
/// `Path`, `Version`), or a status line as its `Response-Message` (`Version`,
/// `Status`, `Reason`): the key, the value and the message's type.
fn start_line([a, b, c]: &[String; 3], request: bool) -> (&'static str, Value, &'static str) {
    match request {
        true => {
            let line = json!({"Method": a, "Path": b, "Version": c});
            ("Request-Message", line, "request")
        }
        false => {
            let line = json!({"Version": a, "Status": b, "Reason": c});
            ("Response-Message", line, "response")
        }
    }
}

/// Whether a link is one of relink's own, written under `Relink-Links`
/// beside `Links`, where readers of Common Crawl's WAT files (which take
/// every entry of `Links`, `Head.Link` and `Head.Scripts`) do not see it:
/// a link no HTML element holds in its attribute or its `style` text. That
/// is every link of a payload that is no HTML page (a feed, a style sheet),
/// the HTTP layer's (`HTTP@/Location`, which such readers take from
/// `Headers` already) and a message part's head's (`MIME@/...`), an
/// element's text other than `style`'s (a feed's `LINK/#text`), a feed's
/// attribute (`ENCLOSURE@/url`), one given with `--attr` that Common
/// Crawl's extractor does not list, and a `meta` refresh's URL, which
/// Common Crawl keeps in `Head.Metas` only.
fn relinks_own(place: &LinkPlace, html: bool) -> bool {
    match place {
        _ if !html => true,
        LinkPlace::Attribute(..) => is_attribute(place, "meta", "content"),
        LinkPlace::Given(element, attribute) => {
            crate::wat_links::listed(&element.to_ascii_lowercase(), attribute).is_none()
        }
        LinkPlace::Text(element) => !element.eq_ignore_ascii_case("style"),
        _ => true,
    }
}

/// Whether a link is in `attribute` of an HTML element named `element`
/// (in any case, as XHTML's are too).
fn is_attribute(place: &LinkPlace, element: &str, attribute: &str) -> bool {
    matches!(place, LinkPlace::Attribute(e, a) if e.eq_ignore_ascii_case(element) && a == attribute)
}

/// Whether an HTTP head's fields say its body is an HTML page: its
/// `Content-Type` is `text/html` or `application/xhtml+xml`, or it has
/// none (the payload was then sniffed).
fn is_html(fields: &[(String, String)]) -> bool {
    let media = fields
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-type"));
    media.is_none_or(|(_, media)| {
        let essence = media.split(';').next().unwrap_or("").trim();
        essence.eq_ignore_ascii_case("text/html")
            || essence.eq_ignore_ascii_case("application/xhtml+xml")
    })
}

/// Common Crawl's name for where a link is: the element upper-cased, then
/// `@/` and the attribute (`A@/href`), or `/#text` for an element's text
/// (`STYLE/#text`). A style sheet's links are `CSS/#text`, a response's
/// HTTP-layer links `HTTP@/Location`, a message part's header
/// `MIME@/Content-Location` (and a Markdown or reStructuredText
/// construct's, `MIME@/link`).
fn wat_path(place: &LinkPlace) -> String {
    let (element, tail) = path_parts(place);
    let mut path = String::with_capacity(element.len() + tail[0].len() + tail[1].len());
    path.push_str(element);
    path.make_ascii_uppercase();
    path.push_str(tail[0]);
    path.push_str(tail[1]);
    path
}

/// [`wat_path`] as a JSON string onto `out`, made there when nothing in it
/// is escaped.
fn write_path(out: &mut Vec<u8>, place: &LinkPlace) {
    let (element, [tail, attribute]) = path_parts(place);
    if needs_escape(element.as_bytes()) || needs_escape(attribute.as_bytes()) {
        return json_string(out, &wat_path(place));
    }
    out.push(b'"');
    out.extend(element.bytes().map(|b| b.to_ascii_uppercase()));
    out.extend_from_slice(tail.as_bytes());
    out.extend_from_slice(attribute.as_bytes());
    out.push(b'"');
}

/// A [`wat_path`]'s element, not yet upper-cased, and what follows it.
fn path_parts(place: &LinkPlace) -> (&str, [&str; 2]) {
    match place {
        LinkPlace::StyleSheet => ("CSS", ["/#text", ""]),
        LinkPlace::Text(element) => (element.as_str(), ["/#text", ""]),
        LinkPlace::MimeHeader(_) | LinkPlace::Markdown(_) | LinkPlace::Rst(_) => {
            ("MIME", ["@/", place.attribute()])
        }
        _ => (place.element(), ["@/", place.attribute()]),
    }
}

/// Writes the leading `warcinfo` record of a WAT file made of `inputs`
/// (their paths, as messages name them): relink's version, and what the
/// file describes.
///
/// ```
/// let mut wat = Vec::new();
/// relink::wat::warcinfo(&mut wat, &["a.warc.gz", "b.warc.gz"])?;
/// let mut text = String::new();
/// std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&wat[..]), &mut text)?;
/// assert!(text.starts_with("WARC/1.0\r\nWARC-Type: warcinfo\r\n"));
/// assert!(text.contains("description: link metadata (WAT) of a.warc.gz b.warc.gz\r\n"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn warcinfo(out: &mut (impl Write + ?Sized), inputs: &[impl AsRef<str>]) -> Result<(), Error> {
    let inputs: Vec<&str> = inputs.iter().map(AsRef::as_ref).collect();
    let block = format!(
        "software: relink {}\r\nformat: WARC File Format 1.0\r\ndescription: link metadata (WAT) of {}\r\n",
        env!("CARGO_PKG_VERSION"),
        inputs.join(" ")
    );
    let fields = [
        ("WARC-Type", "warcinfo".to_owned()),
        ("WARC-Date", undated()),
        // Named apart from a unit's record of the same input.
        (
            "WARC-Record-ID",
            record_id(&format!("warcinfo\0{}", inputs.join("\0"))),
        ),
        ("Content-Type", "application/warc-fields".to_owned()),
    ];
    let (deflater, staged) = (&mut Deflater::default(), &mut Vec::new());
    Ok(write_record(
        (out, deflater, staged),
        &fields,
        block.len(),
        |out| out.write_all(block.as_bytes()),
    )?)
}

/// One WARC/1.0 record, its own gzip member at the fastest level, as
/// Common Crawl writes each record of a WAT file: its head, then its
/// block of `length` bytes as `block` writes it. What goes into the
/// compressor goes in large pieces (each call into it costs it a pass over
/// its whole output buffer), gathered in `staged`.
fn write_record<W: Write + ?Sized>(
    (mut out, deflater, staged): (&mut W, &mut Deflater, &mut Vec<u8>),
    fields: &[(&str, String)],
    length: usize,
    block: impl FnOnce(&mut Staged<'_, dyn Write + '_>) -> io::Result<()>,
) -> io::Result<()> {
    deflater.member(&mut out, Compression::fast(), |gz| {
        staged.clear();
        let mut record = Staged {
            buffer: staged,
            inner: gz,
        };
        record.write_all(b"WARC/1.0\r\n")?;
        for (name, value) in fields {
            write!(record, "{name}: {value}\r\n")?;
        }
        write!(record, "Content-Length: {length}\r\n\r\n")?;
        block(&mut record)?;
        record.write_all(b"\r\n\r\n")?;
        // Passed on, not flushed: a flush would end a deflate block, and
        // add an empty one, before the member is finished.
        record.pass_on()
    })
}

/// How much [`Staged`] gathers before it passes it on.
const STAGED_BYTES: usize = 1 << 16;

/// A buffered writer as `BufWriter` is, with its capacity of
/// [`STAGED_BYTES`], over a buffer kept from one record to the next:
/// pieces gathered until the next would not fit, a piece as large as the
/// capacity passed on as it is. Its calls into `inner` are those a
/// `BufWriter` makes, so the compressor cuts its input as before.
struct Staged<'a, W: Write + ?Sized> {
    buffer: &'a mut Vec<u8>,
    inner: &'a mut W,
}

impl<W: Write + ?Sized> Staged<'_, W> {
    /// Passes on what it gathered.
    fn pass_on(&mut self) -> io::Result<()> {
        let result = self.inner.write_all(self.buffer);
        self.buffer.clear();
        result
    }
}

impl<W: Write + ?Sized> Write for Staged<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.buffer.len() + buf.len() > STAGED_BYTES {
            self.pass_on()?;
        }
        if buf.len() >= STAGED_BYTES {
            return self.inner.write(buf);
        }
        self.buffer.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        if self.buffer.len() + buf.len() > STAGED_BYTES {
            self.pass_on()?;
        }
        if buf.len() >= STAGED_BYTES {
            return self.inner.write_all(buf);
        }
        self.buffer.extend_from_slice(buf);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.pass_on()?;
        self.inner.flush()
    }
}

/// A record ID named after what the record is about (a SHA-1 name-based
/// UUID, RFC 9562 section 5.5), so that the same input gives the same IDs.
fn record_id(name: &str) -> String {
    use sha1::Digest;
    let mut hash = sha1::Sha1::new();
    hash.update(b"relink wat\0");
    hash.update(name.as_bytes());
    let mut b: [u8; 20] = hash.finalize().into();
    b[6] = (b[6] & 0x0f) | 0x50;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "<urn:uuid:{}-{}-{}-{}-{}>",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// The date of a record that has no source record to be dated by (the
/// warcinfo, a document outside an archive): `SOURCE_DATE_EPOCH` when set,
/// as reproducible builds do, else the epoch. Never the clock: the same
/// input gives the same WAT.
fn undated() -> String {
    let secs = std::env::var("SOURCE_DATE_EPOCH").ok();
    let secs = secs.and_then(|s| s.trim().parse::<u64>().ok()).unwrap_or(0);
    warc_date(secs)
}

/// Whether a source record's `WARC-Date` is a W3C-ISO8601 date a WARC
/// record may carry (an ARC record's 14 digits are not).
fn looks_like_a_warc_date(date: &str) -> bool {
    let b = date.as_bytes();
    b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && date
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"-:.+".contains(&c))
}

/// `WARC-Date` of a time, in UTC to the second (WARC 1.0 section 5.4,
/// W3C-ISO8601).
fn warc_date(secs: u64) -> String {
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Days to a civil date (the proleptic Gregorian calendar), after
    // Howard Hinnant's `civil_from_days`.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// A link as a WAT entry, its JSON text onto `out`: Common Crawl's `path`
/// and `url` (as written, character references decoded, as Common
/// Crawl's extractor gives it), relink's `abs`, `base` and `base_from`
/// and, with `details`, its element's other attributes, its text and
/// landmark, and the MIME `part` it is in. Written straight as text, keys
/// in the order a `serde_json` map writes them (sorted, a key given twice
/// the last value): a value of a map for each link cost more than the rest
/// of a WAT record.
fn write_link_entry(
    out: &mut Vec<u8>,
    link: &Link,
    (details, part): (bool, Option<&str>),
    (base_from, base_json): (&str, &[u8]),
) {
    let abs = BaseUrl::has_scheme(&link.resolved).then_some(link.resolved.as_str());
    let more = link.details.as_deref().filter(|_| details);
    // The attributes by their key's place in the sorted order
    // ([`attribute_slot`]), when every one is a name a reader keeps: then
    // the keys are written in order as they stand, with nothing to sort.
    let mut attributes: [Option<&str>; 7] = [None; 7];
    let (mut text, mut context) = (None, None);
    if let Some(more) = more {
        for (name, value) in &more.attributes {
            match attribute_slot(name) {
                Some(i) => attributes[i] = Some(value.as_str()),
                None => {
                    let path = wat_path(&link.place);
                    let fields = (Some(more), part);
                    return write_entry_sorted(out, link, fields, [&path, base_from], abs);
                }
            }
        }
        text = more.text.as_deref();
        context = more.context;
    }
    let [alt, hreflang, method, rel, target, title, kind] = attributes;
    out.extend_from_slice(b"{\"abs\":");
    match abs {
        Some(abs) => json_string(out, abs),
        None => out.extend_from_slice(b"null"),
    }
    entry_field(out, b",\"alt\":", alt);
    out.push(b',');
    out.extend_from_slice(base_json);
    entry_field(out, b",\"context\":", context);
    entry_field(out, b",\"hreflang\":", hreflang);
    entry_field(out, b",\"method\":", method);
    entry_field(out, b",\"part\":", part);
    out.extend_from_slice(b",\"path\":");
    write_path(out, &link.place);
    entry_field(out, b",\"rel\":", rel);
    entry_field(out, b",\"target\":", target);
    entry_field(out, b",\"text\":", text);
    entry_field(out, b",\"title\":", title);
    entry_field(out, b",\"type\":", kind);
    out.extend_from_slice(b",\"url\":");
    json_string(out, &link.original);
    out.push(b'}');
}

/// A key of a WAT link entry (comma, name and colon, its length known
/// where it is written) and its value, when it has one.
fn entry_field<const N: usize>(out: &mut Vec<u8>, key: &[u8; N], value: Option<&str>) {
    if let Some(value) = value {
        out.extend_from_slice(key);
        json_string(out, value);
    }
}

/// Where an attribute a reader keeps ([`LinkDetails::NAMES`](crate::links::LinkDetails::NAMES))
/// goes among the attributes of a WAT link entry, in the order of their
/// keys; none for another name.
fn attribute_slot(name: &str) -> Option<usize> {
    Some(match name {
        "alt" => 0,
        "hreflang" => 1,
        "method" => 2,
        "rel" => 3,
        "target" => 4,
        "title" => 5,
        "type" => 6,
        _ => return None,
    })
}

/// [`write_link_entry`] for a link whose details name an attribute of
/// another name: its fields listed and sorted.
fn write_entry_sorted(
    out: &mut Vec<u8>,
    link: &Link,
    (more, part): (Option<&crate::links::LinkDetails>, Option<&str>),
    [path, base_from]: [&str; 2],
    abs: Option<&str>,
) {
    let mut fields: Vec<(&str, Option<&str>)> =
        Vec::with_capacity(8 + more.map_or(0, |m| m.attributes.len()));
    fields.extend([
        ("path", Some(path)),
        ("url", Some(link.original.as_str())),
        ("abs", abs),
        ("base", link.base.as_ref().map(|b| b.url.as_str())),
        ("base_from", Some(base_from)),
    ]);
    if let Some(more) = more {
        fields.extend(more.attributes.iter().map(|(n, v)| (*n, Some(v.as_str()))));
        fields.extend(more.text.as_deref().map(|text| ("text", Some(text))));
        fields.extend(more.context.map(|context| ("context", Some(context))));
    }
    fields.extend(part.map(|part| ("part", Some(part))));
    write_object(out, &mut fields);
}

/// A JSON object of `fields` onto `out`, as a `serde_json` map of them
/// writes itself: keys sorted, of a key given twice the last value.
fn write_object(out: &mut Vec<u8>, fields: &mut [(&str, Option<&str>)]) {
    // Stable: of a key given twice, the last is kept.
    fields.sort_by_key(|(key, _)| *key);
    out.push(b'{');
    for (i, &(key, value)) in fields.iter().enumerate() {
        if fields.get(i + 1).is_some_and(|(next, _)| *next == key) {
            continue;
        }
        if out.last() != Some(&b'{') {
            out.push(b',');
        }
        json_string(out, key);
        out.push(b':');
        match value {
            Some(value) => json_string(out, value),
            None => out.extend_from_slice(b"null"),
        }
    }
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_of_many_links_is_whole_and_its_length_true() {
        use crate::front::{Input, Output};
        use crate::options::Details;
        use crate::rewriter::Rewriter;
        use std::io::Read;
        // Enough links for the array to be compressed as it is held.
        let page = "<a href=x>\u{e9}</a>".repeat(30_000);
        let mut wat = Vec::new();
        let mut writer = WatWriter::new("page.html").retrieved_from("http://a/b/c");
        Rewriter::new()
            .retrieved_from("http://a/b/c")
            .details(Details::Attributes)
            .run(
                Input::bytes(page.as_bytes()),
                Output::Nowhere,
                &mut |event| Ok(writer.event(&mut wat, &event)?),
            )
            .unwrap();
        writer.finish(&mut wat).unwrap();
        let mut text = Vec::new();
        flate2::read::GzDecoder::new(&wat[..])
            .read_to_end(&mut text)
            .unwrap();
        let text = String::from_utf8(text).unwrap();
        let (head, rest) = text.split_once("\r\n\r\n").unwrap();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("Content-Length: "))
            .unwrap()
            .parse()
            .unwrap();
        assert!(length > JsonArray::SPILL * 2, "{length}");
        assert_eq!(&rest[length..], "\r\n\r\n");
        let json: Value = serde_json::from_str(&rest[..length]).unwrap();
        let html = &json["Envelope"]["Payload-Metadata"]["HTTP-Response-Metadata"]["HTML-Metadata"];
        let links = html["Links"].as_array().unwrap();
        assert_eq!(links.len(), 30_000);
        assert!(
            links
                .iter()
                .all(|l| l["abs"] == "http://a/b/x" && l["text"] == "\u{e9}")
        );
    }

    /// The entry as a map of values writes it: the oracle of
    /// [`write_link_entry`].
    fn entry_value(link: &Link, part: Option<&str>) -> Value {
        let mut entry = json!({
            "path": wat_path(&link.place),
            "url": link.original,
            "abs": BaseUrl::has_scheme(&link.resolved).then_some(link.resolved.as_str()),
            "base": link.base.as_ref().map(|b| b.url.as_str()),
            "base_from": base_from(link),
        });
        let entry_map = entry.as_object_mut().unwrap();
        if let Some(details) = &link.details {
            for (name, value) in &details.attributes {
                entry_map.insert((*name).to_owned(), value.as_str().into());
            }
            if let Some(text) = &details.text {
                entry_map.insert("text".to_owned(), text.as_str().into());
            }
            if let Some(context) = details.context {
                entry_map.insert("context".to_owned(), context.into());
            }
        }
        if let Some(part) = part {
            entry_map.insert("part".to_owned(), part.into());
        }
        entry
    }

    #[test]
    fn wat_paths_are_common_crawls() {
        let own = |s: &str| s.to_owned();
        let cases = [
            (LinkPlace::Attribute(own("a"), own("href")), "A@/href"),
            (
                LinkPlace::Attribute(own("svg:\u{e9}x"), own("xlink:href")),
                "SVG:\u{e9}X@/xlink:href",
            ),
            (LinkPlace::Text(own("style")), "STYLE/#text"),
            (LinkPlace::StyleSheet, "CSS/#text"),
            (LinkPlace::HttpHeader(own("Location")), "HTTP@/Location"),
            (
                LinkPlace::MimeHeader(own("Content-Location")),
                "MIME@/Content-Location",
            ),
        ];
        for (place, path) in cases {
            assert_eq!(wat_path(&place), path, "{place:?}");
        }
    }

    #[test]
    fn link_entries_are_written_as_their_values_would_be() {
        use crate::base::Base;
        use crate::links::LinkDetails;
        use crate::url::Rules;
        let base = |source, url| Base {
            url: BaseUrl::parse(url, Rules::Rfc1808).unwrap(),
            source,
        };
        let details = LinkDetails {
            attributes: vec![
                ("title", "T\u{1}\"\\".to_owned()),
                ("rel", "next".to_owned()),
                ("type", String::new()),
                // An attribute named as a key of relink's: the last is kept.
                ("url", "u".to_owned()),
            ],
            text: Some("caf\u{e9} <b>\n".to_owned()),
            context: Some("nav"),
        };
        // Every name a reader keeps, none of them a key of relink's.
        let kept = LinkDetails {
            attributes: LinkDetails::NAMES
                .iter()
                .map(|&name| (name, format!("{name}\u{e9}")))
                .collect(),
            ..details.clone()
        };
        let places = [
            LinkPlace::Attribute("a\"b".to_owned(), "href".to_owned()),
            LinkPlace::Text("style".to_owned()),
            LinkPlace::StyleSheet,
            LinkPlace::HttpHeader("Location".to_owned()),
        ];
        let mut names = BaseNames::default();
        for (i, place) in places.into_iter().enumerate() {
            let link = Link {
                line: 1,
                column: 1,
                place,
                original: "x\ty\u{2028}".to_owned(),
                resolved: ["http://a/x", "x"][i % 2].to_owned(),
                // The last two of one source and two URLs.
                base: match i {
                    0 => Some(base(BaseSource::TargetUri, "http://a/\u{e9}\"q/")),
                    1 => None,
                    _ => Some(base(
                        BaseSource::RetrievedFrom,
                        ["http://b/", "http://c/"][i % 2],
                    )),
                },
                changed: true,
                unresolved: false,
                details: match i {
                    3 => None,
                    0 | 1 => Some(Box::new(kept.clone())),
                    _ => Some(Box::new(details.clone())),
                },
            };
            for part in [None, Some("1.2")] {
                for listed in [false, true] {
                    let mut text = Vec::new();
                    let with = (!listed, part.filter(|_| !listed));
                    write_link_entry(&mut text, &link, with, names.of(&link));
                    let mut oracle = link.clone();
                    if listed {
                        oracle.details = None;
                    }
                    let value = entry_value(&oracle, with.1);
                    assert_eq!(String::from_utf8(text).unwrap(), value.to_string(), "{i}");
                }
            }
        }
    }

    /// A record that fits the staged buffer goes into the compressor in
    /// one piece, and is finished with nothing more: its member is the one
    /// gzip's encoder makes of its text at the fastest level (before, a
    /// flush ended a deflate block and added an empty one to each).
    #[test]
    fn a_small_record_is_the_member_gzip_makes_of_its_text() {
        let fields = [("WARC-Type", "metadata".to_owned())];
        let mut deflater = Deflater::default();
        for length in [0, 1000, STAGED_BYTES - 100] {
            let block: Vec<u8> = (0..length).map(|i| b"[{}],\"x\""[i % 8]).collect();
            let head =
                format!("WARC/1.0\r\nWARC-Type: metadata\r\nContent-Length: {length}\r\n\r\n");
            let mut ours = Vec::new();
            let record = (&mut ours, &mut deflater, &mut Vec::new());
            write_record(record, &fields, length, |w| w.write_all(&block)).unwrap();
            let mut theirs = flate2::write::GzEncoder::new(Vec::new(), Compression::fast());
            theirs
                .write_all(&[head.as_bytes(), &block, b"\r\n\r\n"].concat())
                .unwrap();
            assert!(ours == theirs.finish().unwrap(), "{length}");
        }
    }

    /// A writer that logs each call made into it, and takes at most
    /// `most` bytes of a `write`.
    struct Logged {
        calls: Vec<(&'static str, usize)>,
        bytes: Vec<u8>,
        most: usize,
    }

    impl Write for Logged {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let n = buf.len().min(self.most);
            self.calls.push(("write", n));
            self.bytes.extend_from_slice(&buf[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            self.calls.push(("flush", 0));
            Ok(())
        }
    }

    /// [`Staged`] makes the calls into its writer that a `BufWriter` of
    /// the same capacity makes, whatever the pieces and however much the
    /// writer takes at a time: the compressor cuts its input as before.
    #[test]
    fn a_staged_writer_passes_pieces_on_as_a_bufwriter_does() {
        let sizes = [
            0,
            1,
            100,
            STAGED_BYTES - 1,
            5,
            STAGED_BYTES,
            STAGED_BYTES,
            7,
            STAGED_BYTES + 3,
            3 * STAGED_BYTES,
            40_000,
            30_000,
            STAGED_BYTES - 40_000,
        ];
        let text: Vec<u8> = (0..sizes.iter().sum::<usize>())
            .map(|i| (i % 251) as u8)
            .collect();
        for most in [usize::MAX, 5000, STAGED_BYTES + 1] {
            for all in [false, true] {
                let new = || Logged {
                    calls: Vec::new(),
                    bytes: Vec::new(),
                    most,
                };
                let (mut theirs, mut ours) = (new(), new());
                let mut buffer = b"left from before".to_vec();
                buffer.clear();
                {
                    let mut bufwriter = io::BufWriter::with_capacity(STAGED_BYTES, &mut theirs);
                    let mut staged = Staged {
                        buffer: &mut buffer,
                        inner: &mut ours,
                    };
                    let mut at = 0;
                    for (i, &n) in sizes.iter().enumerate() {
                        let piece = &text[at..at + n];
                        at += n;
                        match all || i % 2 == 0 {
                            true => {
                                bufwriter.write_all(piece).unwrap();
                                staged.write_all(piece).unwrap();
                            }
                            false => {
                                let a = bufwriter.write(piece).unwrap();
                                let b = staged.write(piece).unwrap();
                                assert_eq!(a, b);
                                bufwriter.write_all(&piece[a..]).unwrap();
                                staged.write_all(&piece[b..]).unwrap();
                            }
                        }
                    }
                    bufwriter.flush().unwrap();
                    staged.flush().unwrap();
                }
                assert_eq!(ours.calls, theirs.calls, "{most} {all}");
                assert!(ours.bytes == text && theirs.bytes == text);
            }
        }
    }

    /// A record written after others, in the buffers they left, is the
    /// one a new writer writes: nothing of theirs stays in it.
    #[test]
    fn a_record_after_others_is_as_a_new_writer_writes_it() {
        use crate::front::{Input, Output};
        use crate::options::Details;
        use crate::rewriter::Rewriter;
        let pages: [&[u8]; 3] = [
            b"<meta name=a content=b><link href=s rel=x><script src=j></script><a href=x>x</a>",
            b"<a href=y>y</a><a href=z>z</a>",
            b"<p>no links",
        ];
        let run = |writer: &mut WatWriter, page: &[u8], wat: &mut Vec<u8>| {
            Rewriter::new()
                .retrieved_from("http://a/b/c")
                .details(Details::Attributes)
                .run(Input::bytes(page), Output::Nowhere, &mut |event| {
                    Ok(writer.event(&mut *wat, &event)?)
                })
                .unwrap();
            writer.finish(wat).unwrap();
        };
        let mut one = WatWriter::new("page.html");
        for (i, page) in pages.iter().enumerate() {
            let mut after = Vec::new();
            run(&mut one, page, &mut after);
            let mut new = Vec::new();
            run(&mut WatWriter::new("page.html"), page, &mut new);
            assert!(after == new, "page {i}");
        }
    }

    #[test]
    fn a_value_is_written_as_serde_json_writes_it() {
        let value = json!({
            "plain": "text",
            "quoted \"key\"": "a\\b\n\u{1}\u{7f}\u{e9}",
            "nested": {"list": ["x", 1, 2.5, null, true, {"y": "\t"}], "empty": {}},
            "none": [],
        });
        let mut written = Vec::new();
        write_value(&mut written, &value).unwrap();
        assert_eq!(
            String::from_utf8(written).unwrap(),
            serde_json::to_string(&value).unwrap()
        );
    }

    #[test]
    fn warc_dates_are_utc_to_the_second() {
        let at = warc_date;
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_700_000_000), "2023-11-14T22:13:20Z");
    }

    #[test]
    fn record_ids_are_name_based_uuids() {
        let id = record_id("a.warc\0record 3");
        assert_eq!(id.len(), "<urn:uuid:>".len() + 36);
        assert_eq!(&id[24..25], "5");
        assert_eq!(id, record_id("a.warc\0record 3"));
        assert_ne!(id, record_id("a.warc\0record 4"));
    }
}
