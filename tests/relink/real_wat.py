"""Compares relink's WAT file with the WAT records of Common Crawl's extractor
for the same WARC, record by record, and prints the differences as JSON.

usage: real_wat.py THEIRS OURS.wat.gz

THEIRS is a WAT file, or a `.jsonl` file of WAT record bodies (the JSON of
a `metadata` record) one a line.
Records are matched by WARC-Type, WARC-Target-URI, WARC-Date and rank among
records with the same three. A difference is `[target, kind, value]`:
- `key`: a key path of theirs that ours lacks (list items as `[]`);
- `record`: a record of theirs with links that ours lacks;
- `link-missing` / `link-extra`: a `path url` pair under HTML-Metadata
  (`Links`, `Head.Link`, `Head.Scripts`) that only they / only we have,
  once per surplus occurrence;
- `link-order`: the pairs both have come in another order;
- `link-value`: another key of an entry both have (`text`, `alt`, `rel`...)
  differs: `path url key: theirs | ours`;
- `value`: a scalar both have at the same key path differs (outside the
  link lists and `Container`, which names another file): `path: theirs | ours`.
Prints `{"differences": [...], "matched": records compared, "shared_links":
pairs both have}`. Exit status 2 when warcio is missing.
"""

import collections
import json
import sys

try:
    from warcio.archiveiterator import ArchiveIterator
except ImportError:
    sys.exit(2)

HTML = ("Envelope", "Payload-Metadata", "HTTP-Response-Metadata", "HTML-Metadata")


def key_paths(value, prefix=""):
    """Every key path in `value`, list items as `[]`."""
    paths = set()
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else key
            paths.add(path)
            paths |= key_paths(item, path)
    elif isinstance(value, list):
        for item in value:
            paths |= key_paths(item, prefix + "[]")
    return paths


def record_key(body):
    head = body.get("Envelope", {}).get("WARC-Header-Metadata", {})
    target = head.get("WARC-Target-URI")
    if target and target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    return (head.get("WARC-Type"), target, head.get("WARC-Date"))


def ranked(bodies):
    """`{(type, target, date, rank): body}`."""
    seen = collections.Counter()
    out = {}
    for body in bodies:
        key = record_key(body)
        out[key + (seen[key],)] = body
        seen[key] += 1
    return out


def entries(body):
    """The link entries under HTML-Metadata (`Head.Link`, `Head.Scripts`,
    `Links`), in document order, each with its `path url` pair."""
    html = body
    for step in HTML:
        html = html.get(step, {}) if isinstance(html, dict) else {}
    head = html.get("Head", {})
    out = []
    for entry in head.get("Link", []) + head.get("Scripts", []) + html.get("Links", []):
        url = entry.get("url", entry.get("href"))
        out.append((f"{entry.get('path')} {url}", entry))
    return out


def in_both(pairs, common):
    """`pairs` less those not in the multiset `common`, in their order."""
    left = collections.Counter(common)
    out = []
    for pair, entry in pairs:
        if left[pair] > 0:
            left[pair] -= 1
            out.append((pair, entry))
    return out


def compare(target, theirs, ours, out):
    """Appends to `out` the differences of one record."""
    for path in sorted(key_paths(theirs) - key_paths(ours)):
        out.append([target, "key", path])
    a, b = entries(theirs), entries(ours)
    ca = collections.Counter(p for p, _ in a)
    cb = collections.Counter(p for p, _ in b)
    for pair, n in sorted((ca - cb).items()):
        out.extend([target, "link-missing", pair] for _ in range(n))
    for pair, n in sorted((cb - ca).items()):
        out.extend([target, "link-extra", pair] for _ in range(n))
    left, right = in_both(a, ca & cb), in_both(b, ca & cb)
    if [p for p, _ in left] != [p for p, _ in right]:
        out.append([target, "link-order", ""])
    for (pair, mine), yours in zip(sorted(left, key=lambda e: e[0]), paired(left, right)):
        for key in sorted(mine):
            if key not in ("path", "url", "href") and mine[key] != yours.get(key):
                out.append([target, "link-value", f"{pair} {key}: {mine[key]!r} | {yours.get(key)!r}"])
    compare_values(target, theirs, ours, "", out)


def paired(left, right):
    """For each entry of `left` sorted by pair (stable), the entry of
    `right` with the same pair and rank among that pair's entries."""
    by_pair = collections.defaultdict(list)
    for pair, entry in right:
        by_pair[pair].append(entry)
    taken = collections.Counter()
    out = []
    for pair, _ in sorted(left, key=lambda e: e[0]):
        out.append(by_pair[pair][taken[pair]])
        taken[pair] += 1
    return out


SKIP = ("Container", "Links", "Link", "Scripts")


def compare_values(target, theirs, ours, prefix, out):
    """`value` differences of the scalars both have at the same key path,
    outside the link lists and `Container` (where the file is another)."""
    for key, mine in theirs.items():
        if key in SKIP or key not in ours:
            continue
        path = f"{prefix}.{key}" if prefix else key
        yours = ours[key]
        if isinstance(mine, dict) and isinstance(yours, dict):
            compare_values(target, mine, yours, path, out)
        elif not isinstance(mine, (dict, list)) and mine != yours:
            out.append([target, "value", f"{path}: {mine!r} | {yours!r}"])


def wat_bodies(path):
    """The JSON of each `metadata` record of a WAT file, or of each line of
    a `.jsonl` file of WAT record bodies."""
    if path.endswith(".jsonl"):
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    with open(path, "rb") as f:
        return [
            json.loads(r.content_stream().read())
            for r in ArchiveIterator(f)
            if r.rec_type == "metadata"
        ]


def main():
    theirs = ranked(wat_bodies(sys.argv[1]))
    ours = ranked(wat_bodies(sys.argv[2]))
    out = []
    matched = shared = 0
    for key, body in theirs.items():
        target = key[1] or key[0]
        if key not in ours:
            if entries(body):
                out.append([target, "record", key[0]])
            continue
        matched += 1
        a = collections.Counter(p for p, _ in entries(body))
        shared += sum((a & collections.Counter(p for p, _ in entries(ours[key]))).values())
        compare(target, body, ours[key], out)
    json.dump({"differences": out, "matched": matched, "shared_links": shared}, sys.stdout, indent=0)


main()
