"""The peer of `relink FILE.warc.gz --list --format json -j 1`: what a
Python user writes today, warcio + selectolax (Lexbor) + urljoin, printing
one JSON line per link. Used by the speed figures of docs/speed.md:

    python3 benches/peers/warc_links_selectolax.py FILE.warc.gz > /dev/null
"""
import json
import sys
from urllib.parse import urljoin

from selectolax.lexbor import LexborHTMLParser
from warcio.archiveiterator import ArchiveIterator

ATTRS = {"a": "href", "link": "href", "img": "src", "script": "src", "iframe": "src",
         "form": "action", "source": "src", "video": "src", "audio": "src"}


def main(path):
    out = sys.stdout
    with open(path, "rb") as stream:
        for record in ArchiveIterator(stream):
            if record.rec_type != "response":
                continue
            ctype = record.http_headers.get_header("Content-Type") or ""
            if "html" not in ctype:
                continue
            target = record.rec_headers.get_header("WARC-Target-URI")
            record_id = record.rec_headers.get_header("WARC-Record-ID")
            tree = LexborHTMLParser(record.content_stream().read())
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
