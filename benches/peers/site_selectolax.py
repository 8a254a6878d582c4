"""The peer of `relink DIR -o OUT -j 1 --retrieved-from URL`: selectolax
(Lexbor) + urljoin, re-serializing each page, as a Python user would.

    python3 benches/peers/site_selectolax.py DIR OUT URL
"""
import os
import sys
from urllib.parse import urljoin

from selectolax.lexbor import LexborHTMLParser

ATTRS = {"a": "href", "link": "href", "img": "src", "script": "src", "iframe": "src",
         "form": "action", "source": "src", "video": "src", "audio": "src"}


def main(src, out, prefix):
    for root, _, files in os.walk(src):
        for name in files:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)
            url = urljoin(prefix, rel)
            with open(path, "rb") as f:
                tree = LexborHTMLParser(f.read())
            for element, attribute in ATTRS.items():
                for node in tree.css(f"{element}[{attribute}]"):
                    value = node.attributes[attribute] or ""
                    node.attrs[attribute] = urljoin(url, value)
            target = os.path.join(out, rel)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8") as f:
                f.write(tree.html)


if __name__ == "__main__":
    main(*sys.argv[1:4])
