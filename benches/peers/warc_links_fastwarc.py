"""The peer of `relink FILE.warc.gz --list --format json -j 1` on the
fastest Python readers: FastWARC (the WARC reader of ChatNoir's Resiliparse)
+ selectolax (Lexbor) + urljoin, printing one JSON line per link, as
`warc_links_selectolax.py` does with warcio:

    python3 benches/peers/warc_links_fastwarc.py FILE.warc.gz > /dev/null
"""
import json
import sys
from urllib.parse import urljoin

from fastwarc.warc import ArchiveIterator, WarcRecordType
from selectolax.lexbor import LexborHTMLParser

ATTRS = {"a": "href", "link": "href", "img": "src", "script": "src", "iframe": "src",
         "form": "action", "source": "src", "video": "src", "audio": "src"}


def main(path):
    out = sys.stdout
    # The path given, FastWARC opens the file and tells its compression.
    for record in ArchiveIterator(path, record_types=WarcRecordType.response, parse_http=True):
        ctype = record.http_headers.get("Content-Type") or ""
        if "html" not in ctype:
            continue
        # A URI written in angle brackets (as WARC/1.0's grammar once did,
        # and wget does) without them, as warcio gives it.
        target = record.headers.get("WARC-Target-URI") or ""
        if target.startswith("<") and target.endswith(">"):
            target = target[1:-1]
        record_id = record.headers.get("WARC-Record-ID")
        tree = LexborHTMLParser(record.reader.read())
        base = tree.css_first("base[href]")
        base_url = urljoin(target, base.attributes["href"]) if base else target
        for element, attribute in ATTRS.items():
            for node in tree.css(f"{element}[{attribute}]"):
                original = node.attributes[attribute] or ""
                out.write(json.dumps({
                    "target_uri": target, "record_id": record_id,
                    "element": element, "attribute": attribute,
                    "original": original, "resolved": urljoin(base_url, original),
                }) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
