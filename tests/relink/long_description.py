"""The links of the long description of each distribution named (a wheel or
an sdist), rendered as PyPI renders it (readme_renderer, which `twine check`
uses): one line each, `FILE<TAB>URL`, for every href and src."""

import email
import sys
import tarfile
import zipfile
from html.parser import HTMLParser
from pathlib import Path

from readme_renderer import markdown, rst


def metadata(path):
    if path.endswith(".whl"):
        with zipfile.ZipFile(path) as wheel:
            name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
            return wheel.read(name)
    with tarfile.open(path) as sdist:
        member = next(
            m for m in sdist.getmembers() if m.name.count("/") == 1 and m.name.endswith("/PKG-INFO")
        )
        return sdist.extractfile(member).read()


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        self.urls.extend(value for name, value in attrs if name in ("href", "src"))


for path in sys.argv[1:]:
    message = email.message_from_bytes(metadata(path))
    body = message.get_payload()
    if "markdown" in message.get("Description-Content-Type", ""):
        html = markdown.render(body)
    else:
        html = rst.render(body)
    if html is None:
        sys.exit(f"{path}: the long description does not render")
    links = Links()
    links.feed(html)
    for url in links.urls:
        print(f"{Path(path).name}\t{url}")
