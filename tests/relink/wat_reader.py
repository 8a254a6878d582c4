"""Reads a WAT file as Common Crawl's readers do, and prints its links.

usage: wat_reader.py WAT SOURCE_WARC

Checks the WARC framing with warcio (a leading warcinfo record, then
metadata records of application/json, each its own gzip member, each
referring to a record of SOURCE_WARC by its WARC-Record-ID), then reads
each JSON block by the key paths cc-pyspark's wat_extract_links.py reads
(Envelope.WARC-Header-Metadata, Envelope.Payload-Metadata.
HTTP-Response-Metadata.HTML-Metadata, its Head's Base, Link and
Scripts and its Links, a record without them skipped as it skips one). Checks each
record of SOURCE_WARC (but a response with no target URI) has one WAT record, whose WARC-Header-Metadata
holds every field of its head, and for a response whose
HTTP-Response-Metadata holds the Response-Message (Version, Status,
Reason) and Headers warcio reads, and the Head's Title lxml reads in
its HTML payload. Prints a JSON list of [target_uri, url, abs, path, own] for each
link, the head's Base as [target_uri, base, null, "BASE@/href", false], in the order
of the file: `own` is false for what those key paths give, true for an entry of
relink's own `Relink-Links` beside `Links`, which cc-pyspark does not read.
Exits 2 when warcio is missing, 1 when the file is not what it should be.
"""

import json
import sys
import zlib

try:
    import lxml.html
    from warcio.archiveiterator import ArchiveIterator
except ImportError:
    sys.exit(2)


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def gzip_members(data):
    """How many gzip members the bytes are, each read whole."""
    count = 0
    while data:
        inflate = zlib.decompressobj(zlib.MAX_WBITS | 16)
        inflate.decompress(data)
        if not inflate.eof:
            fail("a gzip member does not end")
        data = inflate.unused_data
        count += 1
    return count


def source_records(path):
    """WARC-Record-ID to the WARC head and HTTP head of the source's records."""
    records = {}
    with open(path, "rb") as stream:
        for r in ArchiveIterator(stream):
            if r.rec_type == "response" and not r.rec_headers.get_header("WARC-Target-URI"):
                # No WAT record, as Common Crawl's extractor writes none.
                continue
            http = None
            if r.rec_type == "response" and r.http_headers is not None:
                status = r.http_headers.statusline.split(" ", 1)
                http = {
                    "Response-Message": {
                        "Version": r.http_headers.protocol,
                        "Status": status[0],
                        "Reason": status[1] if len(status) > 1 else "",
                    },
                    "Headers": dict(r.http_headers.headers),
                    "Title": title_of(r),
                }
            records[r.rec_headers.get_header("WARC-Record-ID")] = (
                dict(r.rec_headers.headers),
                http,
            )
    return records


def title_of(record):
    """An HTML payload's title as lxml reads it, white space collapsed."""
    kind = record.http_headers.get_header("Content-Type")
    if kind is not None and "html" not in kind:
        return None
    payload = record.content_stream().read()
    if not payload.strip():
        return None
    title = lxml.html.document_fromstring(payload).findtext(".//title")
    return None if title is None else " ".join(title.split())


def check_heads(n, block, source):
    """A WAT record's heads are its source record's."""
    envelope = block["Envelope"]
    warc, http = source
    # warcio gives a target URI out of the angle brackets WARC/1.0 writes
    # it in; so must the WAT, whose readers take it as the URL.
    if envelope["WARC-Header-Metadata"] != warc:
        fail(f"record {n}: WARC-Header-Metadata {envelope['WARC-Header-Metadata']} is not the source's head {warc}")
    meta = envelope["Payload-Metadata"].get("HTTP-Response-Metadata", {})
    if http is not None:
        for key in ("Response-Message", "Headers"):
            if meta.get(key) != http[key]:
                fail(f"record {n}: {key} {meta.get(key)} is not the source's {http[key]}")
        title = meta.get("HTML-Metadata", {}).get("Head", {}).get("Title")
        if title != http["Title"]:
            fail(f"record {n}: Title {title!r} is not lxml's {http['Title']!r}")
    elif "Response-Message" in meta:
        fail(f"record {n}: a Response-Message for no response")


def links_of(record_json, out):
    """The links of one JSON block, by wat_extract_links.py's key paths."""
    warc_header = record_json["Envelope"]["WARC-Header-Metadata"]
    url = warc_header.get("WARC-Target-URI")
    try:
        meta = record_json["Envelope"]["Payload-Metadata"]["HTTP-Response-Metadata"]
        html = meta["HTML-Metadata"]
    except KeyError:
        return warc_header
    head = html.get("Head", {})
    if "Base" in head:
        out.append([url, head["Base"], None, "BASE@/href", False])
    for link in head.get("Link", []) + head.get("Scripts", []) + html.get("Links", []):
        if "url" in link:
            out.append([url, link["url"], link.get("abs"), link["path"], False])
    for link in html.get("Relink-Links", []):
        out.append([url, link["url"], link.get("abs"), link["path"], True])
    return warc_header


def main(wat, source):
    sources = source_records(source)
    with open(wat, "rb") as stream:
        data = stream.read()
    with open(wat, "rb") as stream:
        records = list(ArchiveIterator(stream))
    if gzip_members(data) != len(records):
        fail("not one gzip member a record")
    with open(wat, "rb") as stream:
        out = []
        seen = set()
        for n, record in enumerate(ArchiveIterator(stream)):
            if n == 0:
                if record.rec_type != "warcinfo":
                    fail("the first record is no warcinfo")
                continue
            if record.rec_type != "metadata" or record.content_type != "application/json":
                fail(f"record {n} is no application/json metadata")
            block = json.loads(record.content_stream().read())
            header = links_of(block, out)
            refers = record.rec_headers.get_header("WARC-Refers-To")
            if refers != header.get("WARC-Record-ID") or refers not in sources:
                fail(f"record {n} refers to {refers}, no record of the source")
            if refers in seen:
                fail(f"record {n} refers to {refers} again")
            seen.add(refers)
            check_heads(n, block, sources[refers])
            if record.rec_headers.get_header("WARC-Target-URI") != header.get("WARC-Target-URI"):
                fail(f"record {n}: its target is not the source's")
        if seen != set(sources):
            fail(f"no WAT record for {sorted(set(sources) - seen)}")
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
