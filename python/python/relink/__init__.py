"""Make the relative links of documents absolute, by RFC 1808.

The work is done in Rust, in the private native module ``relink._relink``,
with the GIL released; this package is its public face. Every function
takes its input one way: a path (``str`` or ``os.PathLike``: the file is
read), any bytes-like object (the data), or a binary file object (read
through its ``read``). See ``__init__.pyi`` for the types, and
docs/python.md in the repository for the whole API.
"""

from ._relink import (
    LinkStream,
    RelinkWarning,
    __version__,
    absolutize,
    links,
    mbox_links,
    resolve,
    rewrite,
    rewrite_mbox,
    rewrite_warc,
    warc_links,
    wat,
)

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
