#!/bin/sh
# Seeds fuzz/corpus/<target>/ from fixtures/ (run from anywhere; the seeds
# are not committed). Existing corpus files are kept.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
fx="$root/fixtures"
out="$root/fuzz/corpus"
mkdir -p "$out/html" "$out/message" "$out/mbox" "$out/resolve" "$out/warc" "$out/front"

# html: every #data section of the html5lib tree-construction tests, the
# HTML fixtures, and the first 64 KiB of each real page.
for dat in "$fx"/corpus/html5lib-tests/tree-construction/*.dat; do
    awk -v dir="$out/html" -v name="$(basename "$dat" .dat)" '
        function flush() { if (data != "") { n++; printf "%s", data > (dir "/" name "-" n); close(dir "/" name "-" n) } data = ""; on = 0 }
        $0 == "#data" { flush(); on = 1; first = 1; next }
        /^#(errors|new-errors|document|document-fragment|script-on|script-off)$/ { if (on) flush(); next }
        on { data = first ? $0 : data "\n" $0; first = 0 }
        END { flush() }' "$dat"
done
for f in "$fx"/html/*.html; do
    case "$f" in *.expected.html) ;; *) cp "$f" "$out/html/" ;; esac
done
for f in "$fx"/corpus/pages/*.html; do
    head -c 65536 "$f" > "$out/html/page-$(basename "$f")"
done

# message: the mail corpus and the message fixtures.
for f in "$fx"/corpus/mail/*.eml "$fx"/corpus/mail/*.txt "$fx"/corpus/mail/*.mhtml \
         "$fx"/mail/*.eml "$fx"/mail/*.mhtml "$fx"/mail/maildir/*/*; do
    case "$f" in *.expected.*) ;; *) cp "$f" "$out/message/" ;; esac
done

# mbox: the archives, and each small message as a one-message mbox.
for f in "$fx"/mail/archive.mbox*; do cp "$f" "$out/mbox/"; done
for f in "$out"/message/*; do
    [ "$(wc -c < "$f")" -lt 20000 ] || continue
    { echo "From someone@example.com Mon Jan  1 00:00:00 2024"; cat "$f"; echo; } \
        > "$out/mbox/$(basename "$f").mbox"
done

# resolve: the rows of the resolver tables, as a rules byte (0 RFC 1808,
# 1 RFC 3986, 2 WHATWG), the base, a newline, the reference.
n=0
for table in rfc1808 rfc1808-more rfc3986 rules; do
    rules=0
    [ "$table" = rfc3986 ] && rules=1
    grep -v '^#' "$fx/$table.tsv" | tail -n +2 | while IFS="$(printf '\t')" read -r base ref _; do
        for r in $rules 2; do
            printf "\\$(printf %03o "$r")%s\n%s" "$base" "$ref" > "$out/resolve/$table-$r-$(printf %s "$base$ref" | cksum | cut -d' ' -f1)"
        done
    done
done
# warc: the archives as they are (a first byte of 1), and seeds for the
# generator (a first byte of 0, then eight seed bytes).
for f in "$fx"/warc/*.warc.gz "$fx"/warc/fuzz/*.*arc* "$fx"/archives/pywb/*.*arc* \
         "$fx"/corpus/warc/*.warc.gz; do
    [ -f "$f" ] && [ "$(wc -c < "$f")" -lt 200000 ] || continue
    { printf '\001'; cat "$f"; } > "$out/warc/$(basename "$f")"
done
for seed in 1 2 3 4 5 6 7 8; do
    printf "\\000\\$(printf %03o "$seed")\\000\\000\\000\\000\\000\\000\\000" > "$out/warc/seed-$seed"
done
# front: the fixtures of every kind under 64 KiB, each twice, behind a
# first byte choosing the options (see fuzz_targets/front.rs): 0x30, the
# kind detected, a retrieval URL, attributes, only changes written; 0xf0,
# every byte written under WHATWG. Some pages gzip- and zstd-compressed.
for d in html feeds xml mail markdown rst warc archives docs pages corpus/mail corpus/warc; do
    find "$fx/$d" -type f -size -64k | while read -r f; do
        case "$f" in *.expected.*|*.tsv|*.sh|*.sed|*.py|*LICENSE) continue ;; esac
        name=$(printf %s "$f" | cksum | cut -d' ' -f1)-$(basename "$f")
        { printf '\060'; cat "$f"; } > "$out/front/$name"
        { printf '\360'; cat "$f"; } > "$out/front/w-$name"
    done
done
for f in "$fx"/html/*.html; do
    case "$f" in *.expected.html) continue ;; esac
    { printf '\060'; gzip -c "$f"; } > "$out/front/gz-$(basename "$f")"
    if command -v zstd > /dev/null; then
        { printf '\060'; zstd -q -c "$f"; } > "$out/front/zst-$(basename "$f")"
    fi
done
ls "$out"/* | awk '/:$/ { d = $0 } !/:$/ && NF { c[d]++ } END { for (d in c) print d, c[d], "seeds" }'
