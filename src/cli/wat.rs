//! `--list --format urls` and `--list --format wat`: the rows of each
//! document, message or record gathered as one unit (its URLs each once,
//! or one WAT record), a unit at a time.
//!
//! A WAT file is what Common Crawl publishes beside its WARC files: a WARC
//! of `metadata` records, each its own gzip member, whose JSON block
//! describes one record of the source archive (`Envelope` →
//! `WARC-Header-Metadata`, `Payload-Metadata` → `HTTP-Response-Metadata` →
//! `HTML-Metadata` → `Head` and `Links`). relink writes the same keys for
//! what it knows of a record, and adds its own: each link's resolved URL
//! (`abs`), the base it was resolved against and where that base came
//! from.

use std::collections::HashSet;
use std::io::{self, Write};
use std::time::{SystemTime, UNIX_EPOCH};

use flate2::Compression;
use flate2::write::GzEncoder;
use std::sync::Arc;

use relink::{HtmlHead, LinkRow, RecordHeads, RecordName, Unit};
use serde_json::{Map, Value, json};

use super::hints::has_scheme;
use super::names::base_from;

/// Which document, message or record a row is in: the rows of one unit
/// come one after another.
#[derive(Debug, Clone, PartialEq, Eq)]
struct UnitKey {
    message: Option<usize>,
    record: Option<(usize, String)>,
}

impl UnitKey {
    fn of(row: &LinkRow) -> UnitKey {
        UnitKey {
            message: row.message,
            record: row
                .record
                .as_deref()
                .map(|r| (r.number, r.record_id.clone())),
        }
    }
}

/// The URL a checker is given for a row: its resolved URL when that is
/// absolute, with the white space a URL parser drops (tab, CR, LF)
/// dropped and spaces written `%20`, so that it is one line and one word.
/// `data:` and `javascript:` URLs name nothing to check: none.
pub(crate) fn checkable_url(row: &LinkRow) -> Option<String> {
    let url = row.link.resolved.as_str();
    if !has_scheme(url) {
        return None;
    }
    let scheme = url.split_once(':').map_or("", |(s, _)| s);
    if scheme.eq_ignore_ascii_case("data") || scheme.eq_ignore_ascii_case("javascript") {
        return None;
    }
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        match c {
            '\t' | '\r' | '\n' => {}
            ' ' => out.push_str("%20"),
            c => out.push(c),
        }
    }
    Some(out)
}

/// The URLs of the unit being listed, each printed once.
#[derive(Default)]
pub(crate) struct UrlUnit {
    key: Option<UnitKey>,
    seen: HashSet<String>,
}

impl UrlUnit {
    /// Writes each URL of `rows` not yet written for its unit.
    pub(crate) fn rows(&mut self, out: &mut impl Write, rows: &[LinkRow]) -> io::Result<()> {
        for row in rows {
            let key = UnitKey::of(row);
            if self.key.as_ref() != Some(&key) {
                self.seen.clear();
                self.key = Some(key);
            }
            if let Some(url) = checkable_url(row).filter(|url| !self.seen.contains(url)) {
                writeln!(out, "{url}")?;
                self.seen.insert(url);
            }
        }
        Ok(())
    }
}

/// The WAT record being gathered for one unit: its target and its links,
/// written once the unit is done.
pub(crate) struct WatUnit {
    key: UnitKey,
    /// The mbox message it is, from 1.
    message: Option<usize>,
    /// The source record's `WARC-Header-Metadata`, as far as its name
    /// tells it.
    header: Map<String, Value>,
    /// The source record's heads, when they were kept.
    heads: Option<Arc<RecordHeads>>,
    /// The record's name for the record ID: the input and the unit.
    name: String,
    base: Option<String>,
    /// The HTML head's `Title`, `Metas` and `Scripts`.
    title: Option<String>,
    metas: Vec<Map<String, Value>>,
    scripts: Vec<Value>,
    head_links: Vec<Value>,
    links: Vec<Value>,
}

/// Where a non-archive input's WAT records say they come from.
pub(crate) struct Source<'a> {
    /// The input as messages name it (its path).
    pub(crate) name: &'a str,
    /// The URL it was retrieved from, if given.
    pub(crate) url: Option<&'a str>,
}

/// The units of one input's WAT records, one pending at a time.
#[derive(Default)]
pub(crate) struct WatWriter {
    pending: Option<WatUnit>,
}

impl WatWriter {
    /// Takes rows; writes the WAT record of each unit they finish.
    pub(crate) fn rows(
        &mut self,
        out: &mut Vec<u8>,
        source: &Source<'_>,
        rows: &[LinkRow],
    ) -> io::Result<()> {
        for row in rows {
            let key = UnitKey::of(row);
            if self.pending.as_ref().map(|u| &u.key) != Some(&key) {
                self.finish(out)?;
                self.pending = Some(WatUnit::new(
                    key,
                    source,
                    row.message,
                    row.record.as_deref(),
                ));
            }
            if let Some(unit) = &mut self.pending {
                unit.push(row);
            }
        }
        Ok(())
    }

    /// Takes a unit done: writes its WAT record, with the heads its name
    /// carries and its HTML head's title and metas, whether or not it had
    /// links (Common Crawl writes one for each record).
    pub(crate) fn done(
        &mut self,
        out: &mut Vec<u8>,
        source: &Source<'_>,
        (unit, html): (&Unit, Option<&HtmlHead>),
    ) -> io::Result<()> {
        let (message, record) = match unit {
            Unit::Document => (None, None),
            Unit::Message(n) => (Some(*n), None),
            Unit::Record(name) => (None, Some(&**name)),
            _ => return Ok(()),
        };
        let key = UnitKey {
            message,
            record: record.map(|r| (r.number, r.record_id.clone())),
        };
        if self.pending.as_ref().map(|u| &u.key) != Some(&key) {
            self.finish(out)?;
            self.pending = Some(WatUnit::new(key, source, message, record));
        }
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
            pending.metas = html
                .metas
                .iter()
                .map(|meta| {
                    meta.iter()
                        .map(|(n, v)| ((*n).to_owned(), v.as_str().into()))
                        .collect()
                })
                .collect();
        }
        pending.write(out)
    }

    /// Writes the pending unit's WAT record, if any.
    pub(crate) fn finish(&mut self, out: &mut Vec<u8>) -> io::Result<()> {
        match self.pending.take() {
            Some(unit) => unit.write(out),
            None => Ok(()),
        }
    }
}

impl WatUnit {
    fn new(
        key: UnitKey,
        source: &Source<'_>,
        message: Option<usize>,
        record: Option<&RecordName>,
    ) -> WatUnit {
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
                let target = source.url.unwrap_or(source.name);
                header.insert("WARC-Target-URI".into(), target.into());
                match message {
                    Some(n) => format!("{}\0message {n}", source.name),
                    None => source.name.to_owned(),
                }
            }
        };
        WatUnit {
            message,
            key,
            header,
            heads: record.and_then(|r| r.heads.clone()),
            name,
            base: None,
            title: None,
            metas: Vec::new(),
            scripts: Vec::new(),
            head_links: Vec::new(),
            links: Vec::new(),
        }
    }

    /// One row as a WAT link: Common Crawl's `path` and `url` (as
    /// written), and relink's `abs`, `base` and `base_from`. The first
    /// `<base href>` is the head's `Base` instead, as Common Crawl writes
    /// it; `<link>` goes to the head's `Link`, `<script src>` to its
    /// `Scripts`, as Common Crawl puts them.
    fn push(&mut self, row: &LinkRow) {
        let link = &row.link;
        let element = link.place.element.to_ascii_uppercase();
        if element == "BASE" && link.place.attribute == "href" && self.base.is_none() {
            self.base = Some(link.original.clone());
            return;
        }
        let mut entry = json!({
            "path": wat_path(&element, &link.place.attribute),
            "url": link.original,
            "abs": has_scheme(&link.resolved).then_some(link.resolved.as_str()),
            "base": link.base.as_ref().map(|b| b.url.as_str()),
            "base_from": base_from(row),
        });
        if let (Some(details), Some(entry)) = (&link.details, entry.as_object_mut()) {
            for (name, value) in &details.attributes {
                entry.insert((*name).to_owned(), value.as_str().into());
            }
            if let Some(text) = &details.text {
                entry.insert("text".to_owned(), text.as_str().into());
            }
            if let Some(context) = details.context {
                entry.insert("context".to_owned(), context.into());
            }
        }
        if let (Some(part), Some(entry)) = (row.part.as_deref(), entry.as_object_mut()) {
            // relink's: the MIME part of a message it is in.
            if !part.is_empty() {
                entry.insert("part".to_owned(), part.into());
            }
        }
        if element == "LINK" {
            self.head_links.push(entry);
        } else if element == "SCRIPT" && link.place.attribute == "src" {
            self.scripts.push(entry);
        } else {
            self.links.push(entry);
        }
    }

    /// The unit's WAT record, one gzip member.
    fn write(self, out: &mut Vec<u8>) -> io::Result<()> {
        let refers_to = self
            .header
            .get("WARC-Record-ID")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let target = self
            .header
            .get("WARC-Target-URI")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_owned);
        let name = record_id(&self.name);
        let block = serde_json::to_vec(&self.block())?;
        let mut fields = vec![("WARC-Type", "metadata".to_owned())];
        if let Some(target) = target {
            fields.push(("WARC-Target-URI", target));
        }
        fields.push(("WARC-Date", warc_date(SystemTime::now())));
        fields.push(("WARC-Record-ID", name));
        if let Some(id) = refers_to {
            fields.push(("WARC-Refers-To", id));
        }
        fields.push(("Content-Type", "application/json".to_owned()));
        write_record(out, &fields, &block)
    }

    /// The unit's JSON block: the source record's head (every field of
    /// it when its heads were kept), its HTTP response's status line and
    /// fields, and `HTML-Metadata` when it has links (a record with
    /// neither has an empty `Payload-Metadata`).
    fn block(self) -> Value {
        let mut header = Map::new();
        let mut response = Map::new();
        if let Some(heads) = &self.heads {
            // Every field of the source record's head, as Common Crawl
            // keeps them; the HTTP head's status line and fields.
            header = head_fields(&heads.warc);
            if let Some((line, _)) = heads.http.split_once('\n') {
                response.insert("Response-Message".into(), response_message(line));
                response.insert("Headers".into(), head_fields(&heads.http).into());
            }
        }
        let given = self.header.into_iter();
        header.extend(given.filter(|(_, v)| v.as_str().is_none_or(|v| !v.is_empty())));
        let mut head = Map::new();
        if let Some(title) = self.title {
            head.insert("Title".into(), title.into());
        }
        if let Some(base) = self.base {
            head.insert("Base".into(), base.into());
        }
        if !self.metas.is_empty() {
            head.insert("Metas".into(), self.metas.into());
        }
        if !self.head_links.is_empty() {
            head.insert("Link".into(), self.head_links.into());
        }
        if !self.scripts.is_empty() {
            head.insert("Scripts".into(), self.scripts.into());
        }
        if !head.is_empty() || !self.links.is_empty() {
            let html = json!({ "Head": head, "Links": self.links });
            response.insert("HTML-Metadata".into(), html);
        }
        let mut payload = Map::new();
        if !response.is_empty() {
            payload.insert("HTTP-Response-Metadata".into(), response.into());
        }
        let mut envelope = json!({
            "Format": "WARC",
            "WARC-Header-Metadata": header,
            "Payload-Metadata": payload,
        });
        if let (Some(n), Some(envelope)) = (self.message, envelope.as_object_mut()) {
            // relink's: which message of an mbox.
            envelope.insert("Message-Number".into(), n.into());
        }
        json!({ "Envelope": envelope })
    }
}

/// The fields of a head (a WARC head, an HTTP head) after its first
/// line, up to the blank line: a line that begins with white space goes on
/// the field before it (obs-fold, RFC 9112 section 5.2); a field named
/// twice has its values joined with `, ` (RFC 9110 section 5.3).
fn head_fields(head: &str) -> Map<String, Value> {
    let mut fields: Vec<(String, String)> = Vec::new();
    for line in head.split('\n').skip(1) {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            break;
        }
        if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = fields.last_mut() {
                value.push(' ');
                value.push_str(line.trim());
            }
            continue;
        }
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let (name, value) = (name.trim(), value.trim());
        match fields.iter_mut().find(|(n, _)| n == name) {
            Some((_, before)) => {
                before.push_str(", ");
                before.push_str(value);
            }
            None => fields.push((name.to_owned(), value.to_owned())),
        }
    }
    fields.into_iter().map(|(n, v)| (n, v.into())).collect()
}

/// A status line's `Version`, `Status` and `Reason`, as a WAT record's
/// `Response-Message` has them (`HTTP/1.1`, `200`, `OK`).
fn response_message(line: &str) -> Value {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let mut parts = line.splitn(3, ' ');
    let version = parts.next().unwrap_or_default();
    let status = parts.next().unwrap_or_default();
    let reason = parts.next().unwrap_or_default();
    json!({ "Version": version, "Status": status, "Reason": reason })
}

/// Common Crawl's name for where a link is: the element upper-cased, then
/// `@/` and the attribute (`A@/href`), or `/#text` for an element's text
/// (`STYLE/#text`). A style sheet's links are `CSS/#text`, a response's
/// HTTP-layer links `HTTP@/Location`, a message part's header
/// `MIME@/Content-Location`.
fn wat_path(element: &str, attribute: &str) -> String {
    match (element, attribute) {
        ("", "css") => "CSS/#text".to_owned(),
        ("", attribute) => format!("MIME@/{attribute}"),
        (element, "") => format!("{element}/#text"),
        (element, attribute) => format!("{element}@/{attribute}"),
    }
}

/// The leading `warcinfo` record of a WAT file made of `inputs`.
pub(crate) fn warcinfo(out: &mut Vec<u8>, inputs: &[String]) -> io::Result<()> {
    let block = format!(
        "software: relink {}\r\nformat: WARC File Format 1.0\r\ndescription: link metadata (WAT) of {}\r\n",
        env!("CARGO_PKG_VERSION"),
        inputs.join(" ")
    );
    let fields = [
        ("WARC-Type", "warcinfo".to_owned()),
        ("WARC-Date", warc_date(SystemTime::now())),
        ("WARC-Record-ID", record_id(&inputs.join("\0"))),
        ("Content-Type", "application/warc-fields".to_owned()),
    ];
    write_record(out, &fields, block.as_bytes())
}

/// One WARC/1.0 record, its own gzip member, as Common Crawl writes each
/// record of a WAT file.
fn write_record(out: &mut Vec<u8>, fields: &[(&str, String)], block: &[u8]) -> io::Result<()> {
    let mut gz = GzEncoder::new(out, Compression::default());
    gz.write_all(b"WARC/1.0\r\n")?;
    for (name, value) in fields {
        write!(gz, "{name}: {value}\r\n")?;
    }
    write!(gz, "Content-Length: {}\r\n\r\n", block.len())?;
    gz.write_all(block)?;
    gz.write_all(b"\r\n\r\n")?;
    gz.finish()?;
    Ok(())
}

/// A record ID named after what the record is about (a SHA-1 name-based
/// UUID, RFC 9562 section 5.5), so that the same input gives the same IDs.
fn record_id(name: &str) -> String {
    let mut hash = sha1_smol::Sha1::new();
    hash.update(b"relink wat\0");
    hash.update(name.as_bytes());
    let mut b = hash.digest().bytes();
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

/// `WARC-Date` of a time, in UTC to the second (WARC 1.0 section 5.4,
/// W3C-ISO8601).
fn warc_date(time: SystemTime) -> String {
    let secs = time
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn warc_dates_are_utc_to_the_second() {
        let at = |secs| warc_date(UNIX_EPOCH + Duration::from_secs(secs));
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

    #[test]
    fn heads_are_read_field_by_field() {
        let head = "HTTP/1.1 404 Not Found\r\nSet-Cookie: a=1\r\nX-Long: a\r\n  b\r\nSet-Cookie: b=2\r\n\r\nbody: no\r\n";
        let fields = head_fields(head);
        assert_eq!(fields["Set-Cookie"], "a=1, b=2");
        assert_eq!(fields["X-Long"], "a b");
        assert_eq!(fields.len(), 2);
        let message = response_message("HTTP/1.1 404 Not Found\r");
        assert_eq!(
            message,
            json!({"Version": "HTTP/1.1", "Status": "404", "Reason": "Not Found"})
        );
        assert_eq!(response_message("HTTP/1.0 200")["Reason"], "");
    }

    #[test]
    fn paths_are_common_crawls() {
        assert_eq!(wat_path("A", "href"), "A@/href");
        assert_eq!(wat_path("STYLE", ""), "STYLE/#text");
        assert_eq!(wat_path("", "css"), "CSS/#text");
        assert_eq!(wat_path("HTTP", "Location"), "HTTP@/Location");
        assert_eq!(wat_path("", "Content-Location"), "MIME@/Content-Location");
    }
}
