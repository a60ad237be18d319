#!/bin/sh
# Read-all throughput of LocationKit's PBF and XML readers against osmium on the same files.
# Usage: Benchmarks/osm.sh [repeat]   (repeat: how many times monaco's data blocks are
# repeated to make a larger file; default 57, about 100 MB). Needs osmium-tool.
# Files: monaco.osm.pbf, that repeated (~100 MB PBF), and monaco as OSM XML (osmium cat, ~42 MB),
# where Foundation's XMLParser (counting elements only) is timed as well. Next to the in-process
# reader, `geo osm info FILE` end to end (process wall time, best of 3), as a user runs it.
set -e
cd "$(dirname "$0")/.."
DATA="${LOCATIONKIT_DATA:-../shared/data}"
SRC="$DATA/osm/monaco.osm.pbf"
REPEAT="${1:-57}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

swift build -c release --package-path Benchmarks --product OSMBench >/dev/null
swift build -c release --product geo >/dev/null
BENCH="$(swift build -c release --package-path Benchmarks --show-bin-path)/OSMBench"
GEO="$(swift build -c release --show-bin-path)/geo"

# A PBF file is a sequence of blocks: keep the header block once and repeat the data blocks.
python3 - "$SRC" "$WORK/big.osm.pbf" "$REPEAT" <<'PY'
import struct, sys
src, dst, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, "rb").read()
frames, pos = [], 0
while pos < len(data):
    (hlen,) = struct.unpack(">I", data[pos:pos + 4])
    header = data[pos + 4:pos + 4 + hlen]
    # BlobHeader.datasize is field 3 (varint); parse the few fields present.
    i, size = 0, None
    while i < len(header):
        key = header[i]; i += 1
        if key & 7 == 2:
            n = 0; s = 0
            while True:
                b = header[i]; i += 1; n |= (b & 0x7F) << s; s += 7
                if b < 0x80: break
            i += n
        else:
            n = 0; s = 0
            while True:
                b = header[i]; i += 1; n |= (b & 0x7F) << s; s += 7
                if b < 0x80: break
            if key >> 3 == 3: size = n
    end = pos + 4 + hlen + size
    frames.append(data[pos:end]); pos = end
with open(dst, "wb") as out:
    out.write(frames[0])
    for _ in range(repeat):
        for f in frames[1:]: out.write(f)
PY

best_of() { # best wall time in seconds of 3 runs of a command
    best=""
    for _ in 1 2 3; do
        s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
        t=$(echo "$e - $s" | bc -l)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
    done
    echo "$best"
}

osmium cat "$SRC" -o "$WORK/monaco.osm" -O

for f in "$SRC" "$WORK/big.osm.pbf" "$WORK/monaco.osm"; do
    echo "== $(basename "$f"): $(du -h "$f" | cut -f1)"
    ours=$("$BENCH" "$f" 3)
    echo "$ours"
    elements=$(echo "$ours" | sed -E 's/^[a-z-]+: ([0-9]+) elements in ([0-9.]+) s.*/\1/')
    tours=$(echo "$ours" | sed -E 's/^[a-z-]+: ([0-9]+) elements in ([0-9.]+) s.*/\2/')
    case "$f" in *.osm) "$BENCH" "$f" 1 --foundation-xml ;; esac
    topl=$(best_of osmium cat -f opl -o /dev/null -O "$f")
    tinfo=$(best_of osmium fileinfo -e "$f")
    printf 'osmium cat -f opl:  %.3f s = %.0f elements/s\n' "$topl" "$(echo "$elements / $topl" | bc -l)"
    printf 'osmium fileinfo -e: %.3f s = %.0f elements/s\n' "$tinfo" "$(echo "$elements / $tinfo" | bc -l)"
    tgeo=$(best_of "$GEO" osm info "$f")
    printf 'ratio ours/osmium time: %.2f (vs cat -f opl), %.2f (vs fileinfo -e)\n' \
        "$(echo "$tours / $topl" | bc -l)" "$(echo "$tours / $tinfo" | bc -l)"
    printf 'geo osm info (end to end): %.3f s = %.0f elements/s; ratio geo osm info/osmium fileinfo -e time: %.2f\n' \
        "$tgeo" "$(echo "$elements / $tgeo" | bc -l)" "$(echo "$tgeo / $tinfo" | bc -l)"
done
