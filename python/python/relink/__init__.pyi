"""Make the relative links of documents absolute, by RFC 1808.

Every function takes ``rules``: ``"rfc1808"`` (the default), ``"rfc3986"``
or ``"whatwg"``. A base that is not an absolute URL under those rules, or a
rules name not known, raises ``ValueError``; so does a base that is not
Unicode text (a lone surrogate). Every function but
``resolve`` takes ``lazy`` too: ``True`` reads the lazy-loading attributes
(``data-src``, ``data-srcset``, ``data-original``, ``data-lazy-src``,
``data-background``) as links on every HTML element, as ``relink --lazy``
does. The work is done in Rust, in the private native module
``relink._relink``, with the GIL released.

Every input is taken one way: a path (``str`` or ``os.PathLike``: the file
is read), any bytes-like object (``bytes``, ``bytearray``, ``memoryview``,
``mmap``...: the data), or a binary file object with ``read`` (an ``open()``
file, a ``gzip.open`` stream, an HTTP response, an fsspec or boto3
stream). An archive read as a stream is read in chunks; one written goes to
a path or any binary file object with ``write``. An input of the wrong
kind (a page given to ``warc_links``, a WARC file to ``mbox_links``, a page
given ``kind="warc"``) raises ``ValueError`` naming what it is, never gives
an empty result. A ``str`` is always a path: one that names no file and
reads as a document says to pass bytes. A path written is never replaced
when it is not a regular file: a character device or a FIFO is written
into, a link to a file written through, anything else refused.
"""

from __future__ import annotations

import mmap
import os
from typing import IO, Iterator, Literal, Optional, Protocol, TypedDict, Union, final

__version__: str

__all__ = [
    "LinkStream",
    "RelinkWarning",
    "absolutize",
    "links",
    "mbox_links",
    "resolve",
    "rewrite",
    "rewrite_mbox",
    "rewrite_warc",
    "warc_links",
    "wat",
]

# Rules, Kind, Link, ReadableStream, WritableStream and the unions below
# (Source: any input; Destination: any output)
# exist for type checkers only: import them under
# `if typing.TYPE_CHECKING:`.
Rules = Literal["rfc1808", "rfc3986", "whatwg"]
Kind = Literal["html", "css", "message", "mbox", "warc", "wacz", "xml", "markdown", "rst", "sitemap", "robots", "notebook", "epub"]
BytesLike = Union[bytes, bytearray, memoryview, mmap.mmap]

class ReadableStream(Protocol):
    def read(self, size: int = ..., /) -> bytes: ...

class WritableStream(Protocol):
    def write(self, data: bytes, /) -> Optional[int]: ...

Source = Union[str, os.PathLike[str], BytesLike, ReadableStream, IO[bytes]]
Destination = Union[str, os.PathLike[str], WritableStream, IO[bytes]]

class RelinkWarning(UserWarning):
    """What relink could not do in a document: the part is left as it was."""

class Link(TypedDict):
    """One link: the keys and values of a row of ``relink --list --format
    json``, in its order (docs/python.md has the table).

    - ``file``: the path the input was read from, as given; None for a
      file object or data in memory
    - ``message``: the mbox message it is in, from 1; else None
    - ``part``: the MIME part it is in (``"1.2"``; ``""`` for a message of
      one part); None outside a message
    - ``record``, ``record_id``, ``target_uri``: the web archive record it
      is in: its number from 1, its ``WARC-Record-ID`` as written
      (``<urn:uuid:...>``) and its ``WARC-Target-URI``; None outside one
    - ``line``, ``column``: where the value is, from 1 (the column in bytes
      of the decoded text)
    - ``element``: the element's name (empty for a style sheet's links)
    - ``attribute``: the attribute's name (``css`` for a style sheet's
      links, empty for an element's text)
    - ``original``: the URL as written (character references decoded,
      trimmed)
    - ``resolved``: the URL resolved; None in a document with no base
      (its links are listed as written)
    - ``base``: the base it was resolved against, or None
    - ``base_from``: where that base came from, as the command line says
      it: ``--retrieved-from`` (the ``base`` argument), ``--base``, ``the
      BASE element at line 3``, ``Content-Base of the message``, ``Base of
      part 2``, ``WARC-Target-URI of the record``, ``the enclosing
      document (...)``; ``none`` without one
    - ``changed``: whether a rewrite changes the document here
    """

    attribute: str
    base: Optional[str]
    base_from: str
    changed: bool
    column: int
    element: str
    file: Optional[str]
    line: int
    message: Optional[int]
    original: str
    part: Optional[str]
    record: Optional[int]
    record_id: Optional[str]
    resolved: Optional[str]
    target_uri: Optional[str]

@final
class LinkStream(Iterator[Link]):
    """The links of an archive, read on a background thread as they are
    taken. Safe to share between threads: each link goes to one of them."""

    def __iter__(self) -> LinkStream: ...
    def __next__(self) -> Link: ...
    @property
    def records(self) -> Optional[int]:
        """How many records (of a WARC file) or messages (of an mbox) were
        read, once the iteration has ended; None before."""

def resolve(base: str, reference: str, rules: Rules = "rfc1808") -> str:
    """Resolves ``reference`` against the absolute URL ``base``. A str
    that is not Unicode text (a lone surrogate) raises ``ValueError``.

    >>> resolve("http://a/b/c/d;p?q", "../g")
    'http://a/b/g'
    """

def absolutize(
    data: Source, base: str, rules: Rules = "rfc1808", lazy: bool = False
) -> bytes:
    """Makes the links of an HTML document absolute.

    ``base`` is the URL the document was retrieved from; a BASE element in
    the document still wins. Everything but the changed URLs is kept byte
    for byte (a ``bytes`` input object itself is returned when nothing
    changed); what cannot be done is issued as a ``RelinkWarning``.
    """

def links(
    data: Source,
    base: Optional[str] = None,
    rules: Rules = "rfc1808",
    kind: Optional[Kind] = None,
    lazy: bool = False,
    verify_digests: bool = False,
) -> list[Link]:
    """Every link of a document or archive, read whole into memory, in
    order.

    ``kind`` is found when not given, as ``rewrite`` finds it: a file by
    its name, then its bytes; data and a file object by their bytes (a
    style sheet must be named ``"css"``). ``base`` is the URL the
    data was retrieved from: a message's own headers (``Base``,
    ``Content-Base``, ``Content-Location``) and a document's BASE element
    come first, and a web archive's records use their own target URIs.
    ``verify_digests=True`` checks each web archive record's digests, as
    ``relink --list --verify-digests`` does: a record whose digests do not
    match is said in a ``RelinkWarning``, and its links are not
    ``changed`` (a rewrite leaves it as it is).
    """

def rewrite(
    data: Source,
    base: Optional[str] = None,
    rules: Rules = "rfc1808",
    kind: Optional[Kind] = None,
    lazy: bool = False,
) -> bytes:
    """Rewrites any document relink reads: HTML, CSS, a message or MHTML
    file, an mbox, a web archive (WARC or ARC) or a WACZ package; a gzipped
    document comes back gzipped.

    ``kind`` is found when not given, as the command line finds it: a
    file by its name, then its bytes; data by its bytes (a style sheet
    must be named ``"css"``). A path's file is read, not written: the
    rewritten bytes are returned. ``base`` is the URL
    the document was retrieved from; without one only the document's own
    bases apply (its BASE element, a message's Content-Base and
    Content-Location). The records of a WARC file use their own bases and
    ``base`` is not used. An unknown kind raises ``ValueError``, and so
    does a web archive given another kind: it is never read as a document.
    """

def warc_links(
    source: Source,
    rules: Rules = "rfc1808",
    lazy: bool = False,
    verify_digests: bool = False,
) -> LinkStream:
    """Every link of a web archive (WARC or ARC, plain or gzipped), in
    order.

    ``source`` is a path, data or a binary file object, read as a stream
    in chunks on a background thread, a bounded number of links ahead of
    the iteration, so memory does not grow with the file. A bad record is
    skipped over, as the command line does. Raises ``OSError``
    (``FileNotFoundError``, ... with ``errno`` and ``filename``) at once
    when a path cannot be opened, and during the iteration when it cannot
    be read; ``ValueError`` during the iteration for an input that is no
    web archive (naming what it is) or cannot be read; and what the file
    object's ``read`` raises, as it is. ``verify_digests`` is as for
    ``links``.
    """

def mbox_links(
    source: Source,
    base: Optional[str] = None,
    rules: Rules = "rfc1808",
    lazy: bool = False,
) -> LinkStream:
    """Every link of an mbox (plain or gzipped), message by message, read
    as a stream as ``warc_links`` reads it; an input that is no mbox (a
    web archive, a page) raises ``ValueError`` during the iteration. Each
    message's links resolve against its own headers above ``base``, the
    URL the mbox was retrieved from."""

def rewrite_warc(
    src: Source, dst: Destination, rules: Rules = "rfc1808", lazy: bool = False
) -> int:
    """Rewrites a web archive (WARC or ARC, plain or gzipped) from ``src``
    to ``dst`` as a stream, record by record, each against its own base;
    returns how many records changed.

    A path ``dst`` is written whole or not at all; it may not be ``src``.
    An input that is no web archive raises ``ValueError`` and writes
    nothing. What cannot be done (a bad record, copied as it is) is issued as a
    ``RelinkWarning``.
    """

def rewrite_mbox(
    src: Source,
    dst: Destination,
    base: Optional[str] = None,
    rules: Rules = "rfc1808",
    lazy: bool = False,
) -> int:
    """Rewrites an mbox (plain or gzipped: it comes back gzipped) from
    ``src`` to ``dst`` as a stream, message by message; returns how many
    messages changed. ``base`` is the URL the mbox was retrieved from. An
    input that is no mbox (a web archive, a page) raises ``ValueError`` and
    writes nothing."""

def wat(
    src: Source,
    dst: Destination,
    base: Optional[str] = None,
    rules: Rules = "rfc1808",
    kind: Optional[Kind] = None,
    lazy: bool = False,
    verify_digests: bool = False,
) -> int:
    """Writes the WAT file of any input relink reads to ``dst``, as the
    command line's ``--list --format wat`` writes it; returns how many
    ``metadata`` records were written.

    A WAT file is a WARC of one gzipped ``metadata`` record per document,
    message or record (after a ``warcinfo`` record), whose JSON follows
    Common Crawl's layout (``Envelope`` → ``Payload-Metadata`` →
    ``HTTP-Response-Metadata`` → ``HTML-Metadata`` → ``Head`` and
    ``Links``): each link's ``url`` as written, and relink's ``abs`` (the
    resolved URL), ``base`` and ``base_from`` beside it. ``src`` is read as
    a stream, a record at a time; a path ``dst`` is written whole or not
    at all, and may not be ``src``. ``base`` is the URL the input was
    retrieved from (a WARC's records use their own target URIs), ``kind``
    is found when not given, as for ``links``. A bad base, rules or kind
    name raises ``ValueError``, and so does an input that cannot be read.
    ``verify_digests`` is as for ``links``.
    """
