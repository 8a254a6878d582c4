"""Make the relative links of documents absolute, by RFC 1808.

Every function takes ``rules``: ``"rfc1808"`` (the default), ``"rfc3986"``
or ``"whatwg"``. A base that is not an absolute URL under those rules, or a
rules name not known, raises ``ValueError``. The work is done in Rust with
the GIL released.
"""

from __future__ import annotations

import os
from typing import Iterator, Literal, Optional, TypedDict, Union, final

__version__: str

# Rules, Kind, Link and WarcLink exist for type checkers only: import them
# under `if typing.TYPE_CHECKING:`.
Rules = Literal["rfc1808", "rfc3986", "whatwg"]
Kind = Literal["html", "css", "message", "mbox", "warc", "wacz"]

class RelinkWarning(UserWarning):
    """What relink could not do in a document: the part is left as it was."""

class Link(TypedDict):
    """One link, with the fields of ``relink --list --format json``.

    - ``original``: the URL as written (character references decoded, trimmed)
    - ``resolved``: the URL resolved
    - ``base``: the base it was resolved against, or None
    - ``base_from``: where that base came from (``--retrieved-from``, ``the
      BASE element at line 3``, ``WARC-Target-URI of the record``, ...),
      ``none`` without one
    - ``element``: the element's name (``css`` for a style sheet)
    - ``attribute``: the attribute's name, empty for an element's text
    - ``line``, ``column``: where the value is, from 1 (the column in bytes
      of the decoded text)
    """

    original: str
    resolved: str
    base: Optional[str]
    base_from: str
    element: str
    attribute: str
    line: int
    column: int

class WarcLink(Link):
    """One link of a WARC file, with its record: ``target_uri`` (its
    ``WARC-Target-URI``), ``record_id`` (its ``WARC-Record-ID`` as written,
    ``<urn:uuid:...>``) and ``record`` (its number in the file, from 1)."""

    target_uri: str
    record_id: str
    record: int

@final
class WarcLinks(Iterator[WarcLink]):
    """The links of a WARC file, read on a background thread as they are taken."""

    def __iter__(self) -> WarcLinks: ...
    def __next__(self) -> WarcLink: ...

def resolve(base: str, reference: str, rules: Rules = "rfc1808") -> str:
    """Resolves ``reference`` against the absolute URL ``base``.

    >>> resolve("http://a/b/c/d;p?q", "../g")
    'http://a/b/g'
    """

def absolutize(data: bytes, base: str, rules: Rules = "rfc1808") -> bytes:
    """Makes the links of an HTML document absolute.

    ``base`` is the URL the document was retrieved from; a BASE element in
    the document still wins. Everything but the changed URLs is kept byte
    for byte (the input object itself is returned when nothing changed);
    what cannot be done is issued as a ``RelinkWarning``.
    """

def links(data: bytes, base: str, rules: Rules = "rfc1808") -> list[Link]:
    """Every link of an HTML document retrieved from ``base``, in order."""

def rewrite(
    data: bytes,
    base: Optional[str] = None,
    rules: Rules = "rfc1808",
    kind: Optional[Kind] = None,
) -> bytes:
    """Rewrites any document relink reads: HTML, CSS, a message or MHTML
    file, an mbox, a web archive (WARC or ARC) or a WACZ package; a gzipped
    document comes back gzipped.

    ``kind`` is found from the bytes when not given (a style sheet must be
    named ``"css"``). ``base`` is the URL the document was retrieved from;
    without one only the document's own bases apply (its BASE element, a
    message's Content-Base and Content-Location). The records of a WARC file
    use their own bases and ``base`` is not used. An unknown kind raises
    ``ValueError``, and so does a web archive given another kind: it is
    never read as a document.
    """

def warc_links(path: Union[str, os.PathLike[str]], rules: Rules = "rfc1808") -> WarcLinks:
    """Every link of a WARC file (plain or gzipped), in order.

    The file is read as a stream on a background thread, a bounded number of
    links ahead of the iteration, so memory does not grow with the file.
    Raises ``OSError`` at once when the file cannot be opened, and
    ``ValueError`` during the iteration for a record that cannot be read.
    """
