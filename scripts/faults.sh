#!/usr/bin/env bash
# Replays issue 13's hostile cases against the built `geo` and prints a table: case, exit code,
# first line of standard error, pass or FAIL. Exits non-zero when any case fails (CI runs it).
# Usage: scripts/faults.sh            (builds release geo; GEO=path uses that binary instead)
#   FAULTS_SEED=N   the seed of the truncation offsets (default 13): a run is reproducible
#   FAULTS_CUTS=N   truncations per format (default 100)
#   VERBOSE=1       print every truncation, not only the failing ones
#
# What passes (the issue's rule):
#   error   a non-zero exit below 124, standard error's first line names the file or option, no
#           usage text after an error about a file or source, no crash signal, no timeout
#   pipe    standard output is a pipe whose reader is gone: a quiet end (status 0 or 141 by
#           SIGPIPE), nothing on standard error about it
#   ok      exit 0 (a special file that is valid input or output)
#   warn    exit 0 and standard error names what was left out (a damaged tile: the map is
#           drawn without it)
#   cut     a truncated file: an error naming the file, never a silent success, unless the cut
#           removes nothing the format can miss (trailing whitespace, whole NMEA lines, a whole
#           PBF blob or vector tile layer: formats without an end marker), which is then exit 0;
#           NMEA logs carry noise as a matter of course, so a dropped line there may instead be
#           a one-line warning naming the file, with exit 0
# Every case runs under `timeout`, so a hang is a failure (exit 124), not a stuck CI job.
# Inputs: the shared real-world files ($LOCATIONKIT_DATA, read in place, never copied into the
# repository) and what `geo` writes of its sample city, in a temporary folder. No `geo` command
# reads PNG (the renderer only writes it); the PNG decoder is covered by Fuzz/PNGFuzz.
set -uo pipefail
cd "$(dirname "$0")/.."
DATA="${LOCATIONKIT_DATA:-$(cd .. && pwd)/shared/data}"
SEED="${FAULTS_SEED:-13}"
CUTS="${FAULTS_CUTS:-100}"
LIMIT=30 # seconds any one case may take
if [ -z "${GEO:-}" ]; then
  swift build -c release --product geo >&2 || exit 1
  GEO="$(swift build -c release --show-bin-path)/geo"
fi
command -v python3 >/dev/null || { echo "faults.sh: needs python3" >&2; exit 1; }
T="$(mktemp -d "${TMPDIR:-/tmp}/geo-faults.XXXXXX")"
trap 'rm -rf "$T"' EXIT
cases=0 failures=0

# --- running one case ---------------------------------------------------------------------

# run_geo OUT STDIN ARGS…: runs geo under timeout with standard output to OUT (a path, or
# `closed-pipe`), standard input from STDIN; sets RC and ERR (standard error). With RSS_MB set,
# it also sets RSS to geo's peak resident memory in MB (a limit on address space is no
# test: the static geo does not start under one).
run_geo() {
  local out="$1" in="$2"; shift 2
  if [ "$out" = closed-pipe ]; then
    # A pipe whose read end is closed before geo starts: every write fails with EPIPE.
    python3 - "$T/stderr" "$in" timeout -k 5 "$LIMIT" "$GEO" "$@" <<'PY'
import os, subprocess, sys
r, w = os.pipe(); os.close(r)
with open(sys.argv[1], "wb") as err, open(sys.argv[2], "rb") as inp:
    rc = subprocess.run(sys.argv[3:], stdin=inp, stdout=w, stderr=err).returncode
sys.exit(128 - rc if rc < 0 else rc)
PY
    RC=$?
  else
    if [ -n "${RSS_MB:-}" ]; then
      python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:], stdin=sys.stdin, stdout=sys.stdout, stderr=sys.stderr)
open(sys.argv[1], "w").write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024))
sys.exit(128 - rc if rc < 0 else rc)' "$T/rss" timeout -k 5 "$LIMIT" "$GEO" "$@" <"$in" >"$out" 2>"$T/stderr"
      RC=$?
      RSS="$(cat "$T/rss")"
    else
      timeout -k 5 "$LIMIT" "$GEO" "$@" <"$in" >"$out" 2>"$T/stderr"
      RC=$?
    fi
  fi
  ERR="$(cat "$T/stderr")"
}

# verdict KIND NEEDLE: whether RC and ERR pass for KIND (error, pipe, ok); sets WHY on failure.
verdict() {
  local kind="$1" needle="$2" first="${ERR%%$'\n'*}"
  WHY=""
  if [ "$RC" -eq 124 ] || [ "$RC" -eq 137 ]; then WHY="hang (killed after $LIMIT s)"; return 1; fi
  case "$kind" in
    pipe)
      if [ "$RC" -ne 0 ] && [ "$RC" -ne 141 ]; then WHY="not a quiet end"; return 1; fi
      # Notes written before the failed write (a snapshot's progress) may stay; nothing about it.
      if grep -qi 'pipe\|cannot write' <<<"$ERR"; then WHY="stderr speaks of the pipe"; return 1; fi ;;
    ok)
      if [ "$RC" -ne 0 ]; then WHY="failed"; return 1; fi ;;
    warn)
      if [ "$RC" -ne 0 ]; then WHY="failed"; return 1; fi
      if ! grep -qF -- "$needle" <<<"$ERR"; then WHY="no warning naming $needle"; return 1; fi ;;
    error|file-error)
      if [ "$RC" -ge 128 ]; then WHY="crash signal $((RC - 128))"; return 1; fi
      if [ "$RC" -eq 0 ]; then WHY="silent success"; return 1; fi
      if [ -z "$first" ]; then WHY="no message"; return 1; fi
      # The error names the file or option: on the first line, or (after notes such as a
      # snapshot's progress) on a later one.
      if [ -n "$needle" ] && [[ "$first" != *"$needle"* ]] && ! grep -qF -- "$needle" <<<"$ERR"; then WHY="does not name $needle"; return 1; fi
      if [ "$kind" = file-error ] && grep -q '^Usage:\|^USAGE:' <<<"$ERR"; then WHY="usage text"; return 1; fi
      if grep -q 'NSCocoaErrorDomain\|Fatal error' <<<"$ERR"; then WHY="an internal error dump"; return 1; fi ;;
  esac
  return 0
}

# row NAME: prints one table row for the last case and counts it.
row() {
  local name="$1" mark="pass"
  cases=$((cases + 1))
  if [ -n "$WHY" ]; then mark="FAIL: $WHY"; failures=$((failures + 1)); fi
  local first="${ERR%%$'\n'*}"; first="${first//$T\//}"; first="${first//$DATA\//}"
  printf '%-58.58s %4s  %-70.70s %s\n' "$name" "$RC" "${first:-(nothing)}" "$mark"
}

# check KIND NEEDLE OUT STDIN ARGS…: one case of the table.
check() {
  local kind="$1" needle="$2" out="$3" in="$4"; shift 4
  run_geo "$out" "$in" "$@"
  verdict "$kind" "$needle"
  if [ -z "$WHY" ] && [ -n "${RSS_MB:-}" ] && [ "$RSS" -gt "$RSS_MB" ]; then WHY="peak memory $RSS MB, over $RSS_MB MB"; fi
  row "$(printf '%s ' "$@" | sed "s|$T/||g; s|$DATA/||g")[$([ "$out" = closed-pipe ] && echo '| closed' || echo "> ${out/#$T\//}")]"
}

# --- inputs -----------------------------------------------------------------------------------

: >"$T/empty"
echo "== preparing inputs in $T" >&2
"$GEO" sample-city -o "$T/city.osm.pbf" >/dev/null 2>&1 &&
  "$GEO" extract "$T/city.osm.pbf" -o "$T/city.graph" >/dev/null 2>&1 &&
  "$GEO" route --graph "$T/city.graph" --from 47.997,10.996 --to 48.003,11.004 --format geojson >"$T/route.geojson" 2>/dev/null &&
  "$GEO" simulate --route "$T/route.geojson" --fast --count 120 >"$T/drive.nmea" 2>/dev/null &&
  "$GEO" nmea decode --format gpx "$T/drive.nmea" >"$T/drive.gpx" 2>/dev/null &&
  "$GEO" tiles build "$T/city.osm.pbf" -o "$T/city.pmtiles" --minzoom 12 --maxzoom 13 >/dev/null 2>&1 &&
  "$GEO" tiles build "$T/city.osm.pbf" -o "$T/city.mbtiles" --minzoom 12 --maxzoom 13 >/dev/null 2>&1 ||
  { echo "faults.sh: geo could not write the sample city's files" >&2; exit 1; }
# A stay of 20 minutes at one place, then a walk away: one visit.
{
  echo '<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" creator="faults.sh" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>'
  for i in $(seq 0 49); do
    lat=$(awk -v i="$i" 'BEGIN { printf "%.6f", 48.0 + (i < 40 ? 0 : (i - 39) * 0.0005) }')
    printf '<trkpt lat="%s" lon="11.0"><time>2024-05-01T10:%02d:%02dZ</time></trkpt>\n' "$lat" $((i / 2)) $((i % 2 * 30))
  done
  echo '</trkseg></trk></gpx>'
} >"$T/stay.gpx"
NMEA="$DATA/nmea/ublox-lea-5q.log"
GPX="$DATA/gpx/graphhopper/another-tour-with-loop.gpx"
OSMXML="$DATA/osm/bautzen.osm"
OSMGZ="$DATA/osm/monaco-gh.osm.gz"
for f in "$NMEA" "$GPX" "$OSMXML" "$OSMGZ"; do [ -r "$f" ] || { echo "faults.sh: missing $f (LOCATIONKIT_DATA)" >&2; exit 1; }; done
printf '%-58s %4s  %-70s %s\n' "case" "exit" "first line of standard error" "result"

# --- 1. full disk and closed pipe, every subcommand that writes ------------------------------

FROM=47.997,10.996 TO=48.003,11.004
printf '52.5 13.4 48.85 2.35\n0 0 1 1\n' >"$T/pairs"
printf '47.997 10.996 48.003 11.004\n' >"$T/route-pairs"
cat >"$T/fence.geojson" <<'EOF'
{"type":"Feature","properties":{"name":"fence"},"geometry":{"type":"Polygon","coordinates":[[[10.99,47.99],[11.01,47.99],[11.01,48.01],[10.99,48.01],[10.99,47.99]]]}}
EOF
# Each line: the arguments of one writing command (standard input from the file after `<`).
writers=(
  "distance 52.5,13.4 48.85,2.35"
  "distance --batch <$T/pairs"
  "sample-city -o /dev/stdout"
  "osm info $T/city.osm.pbf"
  "gpx stats $GPX"
  "gpx convert $GPX --to geojson"
  "gpx convert $GPX --to csv"
  "gpx clean $GPX"
  "gpx smooth $GPX"
  "gpx simplify $GPX --tolerance 5"
  "nmea decode $NMEA"
  "nmea decode --format gpx $NMEA"
  "nmea check $NMEA"
  "track --source gpx:$GPX?speed=max --preset raw"
  "simulate --route $T/route.geojson --fast --count 50"
  "extract $T/city.osm.pbf -o /dev/stdout"
  "route --graph $T/city.graph --from $FROM --to $TO"
  "route --graph $T/city.graph --batch <$T/route-pairs"
  "match --graph $T/city.graph $T/drive.gpx"
  "magnetic 48,11"
  "visits $T/stay.gpx"
  "monitor --regions $T/fence.geojson --source gpx:$T/drive.gpx?speed=max"
  "map animate --from 48,11,10 --to 48.01,11.01,12 --duration 1 --fps 5"
  "snapshot --data $T/city.pmtiles --size 32x32 -o -"
  "tiles build $T/city.osm.pbf -o $T/out.pmtiles --maxzoom 12"
  "eval filters --seeds 1 --cases sparse"
)
for w in "${writers[@]}"; do
  in="$T/empty"; args="$w"
  if [[ "$w" == *"<"* ]]; then in="${w##*<}"; args="${w%% <*}"; fi
  read -ra argv <<<"$args"
  if [[ "$w" == "tiles build"* ]]; then
    # Writes only a file: a full disk is a file system, not /dev/full; the -o special file cases below.
    continue
  fi
  # With somewhere to write it succeeds, so the failures below are the writes'.
  check ok "" "$T/stdout" "$in" "${argv[@]}"
  check error "No space left on device" /dev/full "$in" "${argv[@]}"
  check pipe "" closed-pipe "$in" "${argv[@]}"
done
# -o into the full disk and into a closed pipe through /dev/stdout.
for w in "sample-city" "extract $T/city.osm.pbf" "gpx convert $GPX --to gpx" "gpx clean $GPX" "gpx simplify $GPX --tolerance 5" \
         "match --graph $T/city.graph $T/drive.gpx" "snapshot --data $T/city.pmtiles --size 32x32"; do
  read -ra argv <<<"$w"
  check error "/dev/full" "$T/stdout" "$T/empty" "${argv[@]}" -o /dev/full
  check pipe "" closed-pipe "$T/empty" "${argv[@]}" -o /dev/stdout
done

# --- 2. special files ------------------------------------------------------------------------

mkfifo "$T/fifo.osm.pbf" "$T/fifo.osm" "$T/fifo.gpx" "$T/fifo.log" "$T/out-fifo"
# A FIFO as input: read once, as a stream (a second open would hang); PBF too (its blocks
# are read in order from one descriptor and decoded in parallel).
for pair in "fifo.osm.pbf:$T/city.osm.pbf:osm info:ok" "fifo.osm:$OSMXML:osm info:ok" "fifo.gpx:$GPX:gpx stats:ok" "fifo.log:$NMEA:nmea decode:ok"; do
  IFS=: read -r fifo src cmd kind <<<"$pair"
  (cat "$src" >"$T/$fifo" 2>/dev/null &)
  read -ra argv <<<"$cmd"
  check "$kind" "$([ "$kind" = ok ] || echo "$T/$fifo")" "$T/stdout" "$T/empty" "${argv[@]}" "$T/$fifo"
  # A writer that never comes would block the open for ever: unblock it after the case.
  (exec 3<>"$T/$fifo") 2>/dev/null
done
# A FIFO as -o: written through (not replaced), what the reader gets is the whole file.
(cat "$T/out-fifo" >"$T/from-fifo.pbf" &)
check ok "" "$T/stdout" "$T/empty" sample-city -o "$T/out-fifo"
[ -p "$T/out-fifo" ] && (exec 3<>"$T/out-fifo") 2>/dev/null # a reader still waiting for a writer
sleep 0.2
if [ -p "$T/out-fifo" ] && cmp -s "$T/from-fifo.pbf" "$T/city.osm.pbf"; then :; else RC=1 ERR="the FIFO was replaced or got other bytes"; WHY="not written through"; row "sample-city -o FIFO: the reader gets the file"; fi
mkdir "$T/dir"
for cmd in "osm info" "gpx stats" "nmea decode" "extract -o $T/x.graph" "route --from $FROM --to $TO --graph" "simulate --count 1 --fast --route" \
           "snapshot --size 32x32 -o $T/x.png --data" "match --graph $T/city.graph" "style expression"; do
  read -ra argv <<<"$cmd"
  check file-error "$T/dir" "$T/stdout" "$T/empty" "${argv[@]}" "$T/dir"
  check file-error "$T/nowhere.file" "$T/stdout" "$T/empty" "${argv[@]}" "$T/nowhere.file"
done
check file-error "/dev/null" "$T/stdout" "$T/empty" osm info /dev/null
check file-error "/dev/null" "$T/stdout" "$T/empty" gpx stats /dev/null
check file-error "/dev/null" "$T/stdout" "$T/empty" route --graph /dev/null --from "$FROM" --to "$TO"
check file-error "/dev/null" "$T/stdout" "$T/empty" snapshot --data /dev/null --size 32x32 -o "$T/x.png"
check file-error "/dev/null" "$T/stdout" "$T/empty" style expression /dev/null
check ok "" "$T/stdout" "$T/empty" sample-city -o /dev/null
# -o a directory, a path in a missing directory, a symbolic link (to a file: refused; the file stays).
check file-error "$T/dir" "$T/stdout" "$T/empty" sample-city -o "$T/dir"
check file-error "$T/missing/out.pbf" "$T/stdout" "$T/empty" sample-city -o "$T/missing/out.pbf"
# geo sprites build: a missing folder, a cut SVG and a 2× drawing without its 1× icon are named.
mkdir -p "$T/icons-cut" "$T/icons-lone"
printf '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8"' >"$T/icons-cut/bus.svg"
python3 -c 'import struct, sys, zlib
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
sys.stdout.buffer.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 6, 0, 0, 0))
                        + chunk(b"IDAT", zlib.compress(b"\0" + b"\xff" * 8 + b"\0" + b"\xff" * 8)) + chunk(b"IEND", b""))' >"$T/icons-lone/bus@2x.png"
check file-error "$T/no-icons" "$T/stdout" "$T/empty" sprites build "$T/no-icons" -o "$T/sprite"
check file-error "bus.svg" "$T/stdout" "$T/empty" sprites build "$T/icons-cut" -o "$T/sprite"
check file-error "bus@2x.png" "$T/stdout" "$T/empty" sprites build "$T/icons-lone" -o "$T/sprite"
echo keep >"$T/target"; ln -s "$T/target" "$T/link.pbf"
check file-error "link.pbf" "$T/stdout" "$T/empty" sample-city -o "$T/link.pbf"
if [ "$(cat "$T/target")" != keep ] || [ ! -L "$T/link.pbf" ]; then RC=0 ERR="the link or its target changed"; WHY="followed"; row "sample-city -o SYMLINK leaves link and target"; fi
ln -s /dev/null "$T/null-link"
check ok "" "$T/stdout" "$T/empty" gpx convert "$GPX" --to gpx -o "$T/null-link"
if [ ! -L "$T/null-link" ]; then RC=0 ERR="the link to /dev/null was replaced"; WHY="replaced"; row "-o SYMLINK to a device"; fi

# --- 3. absurd options -------------------------------------------------------------------------

absurd=(
  "--speed|simulate --route $T/route.geojson --speed 1e20"
  "--speed|simulate --route $T/route.geojson --speed NaN"
  "--speed|simulate --route $T/route.geojson --speed -1"
  "--interval|simulate --route $T/route.geojson --interval 1e20"
  "--interval|simulate --route $T/route.geojson --interval 0"
  "--count|simulate --route $T/route.geojson --count -1"
  "--count|simulate --route $T/route.geojson --count 0"
  "--for|track --source gpx:$GPX --for 1e20"
  "--for|track --source gpx:$GPX --for NaN"
  "--count|track --source gpx:$GPX --count 0"
  "--retry|track --source gpsd://127.0.0.1:1 --retry -1"
  "--timeout|track --source gpsd://127.0.0.1:1 --timeout 0"
  "--tolerance|gpx simplify $GPX --tolerance 1e20"
  "--tolerance|gpx simplify $GPX --tolerance NaN"
  "--zoom|snapshot --data $T/city.pmtiles --zoom 1e20 -o $T/x.png"
  "--size|snapshot --data $T/city.pmtiles --size 0x0 -o $T/x.png"
  "--size|snapshot --data $T/city.pmtiles --size 99999x99999 -o $T/x.png"
  "--maxzoom|tiles build $T/city.osm.pbf -o $T/x.pmtiles --maxzoom 1e20"
  "--maxzoom|tiles build $T/city.osm.pbf -o $T/x.pmtiles --maxzoom -1"
  "--fps|map animate --from 48,11,10 --to 48,11,12 --fps 0"
  "--duration|map animate --from 48,11,10 --to 48,11,12 --duration 1e20"
  "--altitude|magnetic 48,11 --altitude 1e20"
  "--radius|visits $GPX --radius -1"
  "--accuracy|match --graph $T/city.graph $GPX --accuracy NaN"
  "--dwell|monitor --regions $T/fence.geojson --source gpx:$GPX --dwell 1e20"
  "--from|route --graph $T/city.graph --from 91,0 --to $TO"
  "latitude|distance 1e17,0 0,0"
  "speed|track --source gpx:$GPX?speed=1e-308"
)
for a in "${absurd[@]}"; do
  needle="${a%%|*}"; read -ra argv <<<"${a#*|}"
  check error "$needle" "$T/stdout" "$T/empty" "${argv[@]}"
done
# Negative coordinates after a space are values, not options.
check ok "" "$T/stdout" "$T/empty" distance -33.92,18.42 -10,-50
check ok "" "$T/stdout" "$T/empty" magnetic -33.92,18.42
check ok "" "$T/stdout" "$T/empty" map animate --from -15,140,3 --to -33.9,151.2,5 --duration 1 --fps 2
run_geo "$T/stdout" "$T/empty" route --graph "$T/city.graph" --from -33.9,18.4 --to -10,-50
WHY=""; if [ "$RC" -ge 124 ] || [[ "$ERR" == *"Missing value"* ]] || [[ "$ERR" == *"Unknown option"* ]]; then WHY="the coordinate was taken for an option"; fi
row "route --from -33.9,18.4 --to -10,-50 (parsed; no road is near)"

# Hostile style expressions (issue 31): a fixture cut short, 100 nested "all" around a bad
# argument (3^100 parses when each overload re-parsed it), 250 nested lets doubling their
# value (a stack overflow, 2^250 evaluations): a parse error or a result, in bounded time.
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
open(f"{t}/cut.expr.json", "w").write('{"expression": ["interpolate", ["linear"], ["zoom"], 0, ')
e = "oops"
for _ in range(100): e = ["all", e, True]
json.dump({"expression": e, "inputs": [[{}, {}]]}, open(f"{t}/overloads.expr.json", "w"))
body = ["var", "v250"]
for level in range(250, 0, -1): body = ["let", f"v{level}", ["+", ["var", f"v{level - 1}"], ["var", f"v{level - 1}"]], body]
json.dump({"expression": ["let", "v0", 1, body], "inputs": [[{}, {}]]}, open(f"{t}/lets.expr.json", "w"))
PY
check file-error "$T/cut.expr.json" "$T/stdout" "$T/empty" style expression "$T/cut.expr.json"
check ok "" "$T/stdout" "$T/empty" style expression "$T/overloads.expr.json"
check ok "" "$T/stdout" "$T/empty" style expression "$T/lets.expr.json"
# A style naming a GeoJSON file of 1 GB (sparse): refused by its size before a byte is read
# (once, the first 256 MiB were read and parsed), the rest of the style drawn, in bounded memory.
truncate -s 1G "$T/huge.geojson"
printf '%s' '{"version":8,"sources":{"g":{"type":"geojson","data":"huge.geojson"}},"layers":[{"id":"bg","type":"background","paint":{"background-color":"#ffffff"}},{"id":"c","type":"circle","source":"g"}]}' > "$T/huge-style.json"
RSS_MB=128 check warn "huge.geojson" "$T/stdout" "$T/empty" snapshot --style "$T/huge-style.json" --size 64x64 -o "$T/x.png"

# --- 4. unreachable hosts ----------------------------------------------------------------------

# Port 1 on the loopback refuses; .invalid never resolves (RFC 6761).
check file-error "127.0.0.1" "$T/stdout" "$T/empty" track --source gpsd://127.0.0.1:1 --retry 2 --timeout 1
check file-error "nowhere.invalid" "$T/stdout" "$T/empty" track --source gpsd://nowhere.invalid:2947 --retry 1 --timeout 1
check file-error "127.0.0.1" "$T/stdout" "$T/empty" track --source nmea+tcp://127.0.0.1:1 --retry 0 --timeout 1
check file-error "$T/nowhere.gpx" "$T/stdout" "$T/empty" track --source gpx:$T/nowhere.gpx
check file-error "$T/dir" "$T/stdout" "$T/empty" track --source gpx:$T/dir

# --- 5. truncations at seeded random offsets --------------------------------------------------

# The cuts one format cannot see (it has no end marker there): python3 prints 1 when the part
# removed from FILE at OFFSET is one of them.
undetectable() {
  python3 - "$1" "$2" "$3" <<'PY'
import sys, struct, gzip
kind, path, cut = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = open(path, "rb").read()
def boundaries_pbf():
    at = 0; out = {0}
    while at + 4 <= len(b):
        n = struct.unpack(">I", b[at:at + 4])[0]; head = b[at + 4:at + 4 + n]
        # BlobHeader.datasize = field 3, varint
        i = 0; size = 0
        while i < len(head):
            key = head[i]; i += 1
            if key >> 3 == 3 and key & 7 == 0:
                shift = 0; size = 0
                while True:
                    c = head[i]; i += 1; size |= (c & 0x7F) << shift; shift += 7
                    if c < 0x80: break
            elif key & 7 == 2:
                l = 0; shift = 0
                while True:
                    c = head[i]; i += 1; l |= (c & 0x7F) << shift; shift += 7
                    if c < 0x80: break
                i += l
            elif key & 7 == 0:
                while head[i] & 0x80: i += 1
                i += 1
        at += 4 + n + size; out.add(at)
    return out
tail = b[cut:]
if kind in ("xml", "json"): print(int(tail.strip() == b""))
elif kind == "nmea":
    # A whole line, a whole sentence without its line end, or a cut inside a line that holds
    # no sentence (a log's # comments).
    import re
    last = b[b.rfind(b"\n", 0, cut) + 1:cut]
    print(int(re.fullmatch(rb"(.*\*[0-9A-Fa-f]{2})?\r?", last, re.S) is not None or b"$" not in last and b"!" not in last))
elif kind == "pbf": print(int(cut in boundaries_pbf()))
else: print(0)
PY
}

# truncate NAME KIND FILE COMMAND…: CUTS cuts of FILE at seeded offsets, each run as COMMAND
# with the cut file appended (`{}` in COMMAND: there instead).
truncate_format() {
  local name="$1" kind="$2" file="$3"; shift 3
  local size; size=$(stat -c %s "$file")
  local ext="${file##*/}"; ext="${ext#*.}"
  local cut="$T/cut.$ext" pass=0 fail=0 undet=0 codes="" firstfail="" i
  # The whole file must succeed, or the cuts prove nothing.
  local args=(); for a in "$@"; do args+=("${a//\{\}/$file}"); done
  run_geo "$T/stdout" "$T/empty" "${args[@]}"
  if [ "$RC" -ne 0 ]; then WHY="the uncut file fails"; row "truncate $name: uncut $(basename "$file")"; return; fi
  RANDOM=$((SEED + ${#name}))
  for ((i = 0; i < CUTS; i++)); do
    local off=$(( (RANDOM * 32768 + RANDOM) % (size - 1) + 1 ))
    head -c "$off" "$file" >"$cut"
    args=(); for a in "$@"; do args+=("${a//\{\}/$cut}"); done
    run_geo "$T/stdout" "$T/empty" "${args[@]}"
    local ok=1 label="cut"
    if [ "$RC" -eq 0 ] && [ "$(undetectable "$kind" "$file" "$off")" = 1 ]; then
      undet=$((undet + 1)); WHY=""; label="cut (undetectable)"
    elif [ "$kind" = nmea ] && [ "$RC" -eq 0 ] && [[ "${ERR%%$'\n'*}" == *"$(basename "$cut")"*dropped* ]]; then
      WHY=""; label="cut (a warning)"
    else
      verdict error "$(basename "$cut")"
      [ -n "$WHY" ] && ok=0
    fi
    codes+="$RC "
    if [ "$ok" = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); [ -z "$firstfail" ] && firstfail="$off: $WHY"; fi
    if [ "$ok" = 0 ] || [ -n "${VERBOSE:-}" ]; then
      cases=$((cases + 1)); [ "$ok" = 0 ] && failures=$((failures + 1))
      printf '%-58.58s %4s  %-70.70s %s\n' "  $name $label at byte $off of $size" "$RC" "${ERR%%$'\n'*}" "$([ "$ok" = 1 ] && echo pass || echo "FAIL: $WHY")"
    fi
  done
  local summary; summary=$(tr ' ' '\n' <<<"$codes" | sed '/^$/d' | sort -n | uniq -c | awk '{printf "%s×%s ", $2, $1}')
  cases=$((cases + 1)); [ "$fail" -gt 0 ] && failures=$((failures + 1))
  printf '%-58.58s %4s  %-70.70s %s\n' "truncate $name ×$CUTS (seed $SEED)" "-" "exits: $summary(undetectable cuts: $undet)" \
    "$([ "$fail" = 0 ] && echo "pass ($pass)" || echo "FAIL ($fail; first at byte $firstfail)")"
}

# An MBTiles archive whose every tile is one vector tile cut short (gunzipped, cut, gzipped).
cut_tiles() { # SRC DST CUT-FRACTION-SEED
  python3 - "$1" "$2" "$3" <<'PY'
import sqlite3, sys, gzip, random, shutil
src, dst, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
shutil.copyfile(src, dst)
db = sqlite3.connect(dst); rnd = random.Random(seed); layer_cuts = 0
rows = db.execute("SELECT rowid, tile_data FROM tiles").fetchall()
for rowid, blob in rows:
    raw = gzip.decompress(blob) if blob[:2] == b"\x1f\x8b" else blob
    cut = rnd.randrange(1, len(raw)) if len(raw) > 1 else 0
    # A cut between two top-level layers leaves a valid, smaller tile (protobuf has no end marker).
    at = 0; bounds = {0}
    while at < len(raw):
        at += 1; n = 0; shift = 0
        while True:
            c = raw[at]; at += 1; n |= (c & 0x7F) << shift; shift += 7
            if c < 0x80: break
        at += n; bounds.add(at)
    layer_cuts += cut in bounds
    db.execute("UPDATE tiles SET tile_data = ? WHERE rowid = ?", (gzip.compress(raw[:cut]), rowid))
db.commit(); print(1 if layer_cuts == len(rows) else 0)
PY
}

truncate_format "NMEA" nmea "$NMEA" nmea decode {}
truncate_format "GPX" xml "$GPX" gpx stats {}
truncate_format "OSM XML" xml "$OSMXML" osm info {}
truncate_format ".osm.gz" none "$OSMGZ" osm info {}
truncate_format "PBF" pbf "$T/city.osm.pbf" osm info {}
truncate_format "GeoJSON" json "$T/route.geojson" simulate --fast --count 3 --route {}
truncate_format "road-graph file" none "$T/city.graph" route --graph {} --from "$FROM" --to "$TO"
truncate_format "PMTiles" none "$T/city.pmtiles" snapshot --data {} --size 32x32 -o "$T/x.png"
truncate_format "MBTiles" none "$T/city.mbtiles" snapshot --data {} --size 32x32 -o "$T/x.png"
# MVT: every tile of an archive cut at a seeded offset, the archive itself intact: a tile that
# does not decode is drawn as empty with a warning naming it (issue 36: one tile's error).
mvt_pass=0 mvt_fail=0
for ((i = 0; i < CUTS / 10; i++)); do
  all_layer_cuts=$(cut_tiles "$T/city.mbtiles" "$T/cut-tiles.mbtiles" $((SEED * 1000 + i)))
  run_geo "$T/stdout" "$T/empty" snapshot --data "$T/cut-tiles.mbtiles" --zoom 13 --size 256x256 -o "$T/x.png"
  if [ "$RC" -eq 0 ] && { [ "$all_layer_cuts" = 1 ] || grep -q "cut-tiles.mbtiles: tile 13/" <<<"$ERR"; }; then WHY=""; else verdict error "cut-tiles.mbtiles"; fi
  if [ -z "$WHY" ]; then mvt_pass=$((mvt_pass + 1)); else
    mvt_fail=$((mvt_fail + 1)); row "  MVT tiles cut (seed $((SEED * 1000 + i))) in an MBTiles archive"; fi
done
cases=$((cases + 1)); [ "$mvt_fail" -gt 0 ] && failures=$((failures + 1))
printf '%-58.58s %4s  %-70.70s %s\n' "truncate MVT tiles inside MBTiles ×$((CUTS / 10))" "-" "${ERR%%$'\n'*}" \
  "$([ "$mvt_fail" = 0 ] && echo "pass ($mvt_pass)" || echo "FAIL ($mvt_fail)")"

# --- servers: issue 36 items 1, 7 and 10, issues 32 and 35's hostile clients (HTTPServing) ---
# A taken port is an error naming --port, and nothing says "serving" before it.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
taken_port=$(free_port)
python3 -c 'import socket, sys, time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(60)' "$taken_port" &
holder=$!
sleep 0.5
check error "--port $taken_port" "$T/stdout" "$T/empty" map --port "$taken_port"
if grep -q "serving" <<<"$ERR"; then WHY="said serving before failing"; row "  (nothing says serving on a taken port)"; fi
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null

# Hostile clients against each server (scripts/hostile-http.py: each line of its output is one
# case): the live page (geo map), the tile server (geo serve) and the tracking server (geo
# serve-tracking, with its Teltonika port).
hostile() {  # hostile KIND PORT PID [TELTONIKA_PORT]
  python3 scripts/hostile-http.py "$@" >"$T/server-cases" 2>&1
  kill -9 "$3" 2>/dev/null; wait "$3" 2>/dev/null
  while IFS=$'\t' read -r name verdict_text; do
    cases=$((cases + 1)); RC=0
    if [ "$verdict_text" != pass ]; then failures=$((failures + 1)); fi
    printf '%-58.58s %4s  %-70.70s %s\n' "$name" "-" "" "$verdict_text"
  done <"$T/server-cases"
  grep -q $'\t' "$T/server-cases" || { cases=$((cases + 1)); failures=$((failures + 1)); echo "$1: the hostile-client script failed: $(tail -1 "$T/server-cases")"; }
}
port=$(free_port)
"$GEO" map --port "$port" --host 127.0.0.1 2>"$T/map-stderr" >/dev/null &
hostile map "$port" $!
port=$(free_port)
"$GEO" serve "$T/city.pmtiles" --port "$port" --quiet 2>"$T/serve-stderr" >/dev/null &
hostile serve "$port" $!
port=$(free_port); teltonika_port=$(free_port)
"$GEO" serve-tracking --db "$T/hostile.sqlite" --port "$port" --device d1 --teltonika-port "$teltonika_port" 2>"$T/tracking-stderr" >/dev/null &
hostile tracking "$port" $! "$teltonika_port"
# Whatever a hostile client does, a server's own log stays bounded (ServerLog: 10 lines a minute).
for log in map serve tracking; do
  cases=$((cases + 1)); lines=$(wc -l <"$T/$log-stderr")
  if [ "$lines" -le 100 ]; then verdict_text=pass; else verdict_text="FAIL: $lines lines"; failures=$((failures + 1)); fi
  printf '%-58.58s %4s  %-70.70s %s\n' "$log: standard error after the hostile clients" "-" "$lines lines" "$verdict_text"
done

# --- 6. overflows, lined-up output, endless replay, silent wrong answers (issue 36) ---------

# expect NAME TEST WHY: one table row for the last run_geo, failing with WHY unless TEST (a
# shell condition) holds; a crash signal or a hang fails whatever TEST says.
expect() {
  local label="$1" test="$2"; WHY=""
  if [ "$RC" -ge 124 ]; then WHY="crash or hang (exit $RC)"; elif ! eval "$test"; then WHY="$3"; fi
  row "$label"
}

# Traps on numeric overflow: an orientation whose radians overflow; a circle of 10^15 m (and
# again from its --store); graph files with a valid CRC and a broken column.
for o in 1e308 -1e308 1.7976931348623157e308; do
  check ok "" "$T/stdout" "$T/empty" snapshot --data "$T/city.pmtiles" --size 32x32 -o "$T/x.png" --orientation "$o"
done
printf '{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"everywhere","radius":%s},"geometry":{"type":"Point","coordinates":[11,48]}}]}\n' 1e15 >"$T/huge-circle.geojson"
check ok "" "$T/stdout" "$T/empty" monitor --regions "$T/huge-circle.geojson" --source "gpx:$T/drive.gpx?speed=max"
inside=$(grep -c '"state":"inside"' "$T/stdout"); expect "  a circle of 10^15 m holds the drive" '[ "$inside" -gt 0 ]' "no inside state"
check ok "" "$T/stdout" "$T/empty" monitor --regions "$T/huge-circle.geojson" --source "gpx:$T/drive.gpx?speed=max" --store "$T/huge-store"
check ok "" "$T/stdout" "$T/empty" monitor --regions "$T/huge-circle.geojson" --source "gpx:$T/drive.gpx?speed=max" --store "$T/huge-store"
# graph_patch SRC DST COLUMN INDEX FORMAT VALUE: SRC with one element of a column replaced
# (struct FORMAT, e.g. <I) and the payload's CRC-32 written again (GraphFile's layout).
graph_patch() {
  python3 - "$@" <<'PY'
import struct, sys, zlib
src, dst, column, index, fmt, value = sys.argv[1:7]
b = bytearray(open(src, "rb").read())
sizes = [("node latitudes", 4), ("node longitudes", 4), ("node ids", 8), ("node flags", 1), ("node penalties", 4),
         ("node road counts", 1), ("edge offsets", 4), ("incoming offsets", 4), ("incoming edges", 4), ("edge sources", 4),
         ("edge targets", 4), ("edge segments", 4), ("edge durations", 4), ("edge weights", 4), ("edge speeds", 4),
         ("edge flags", 1), ("edge modes", 1), ("edge twins", 4), ("edge start bearings", 4), ("edge end bearings", 4),
         ("shape offsets", 4), ("shape latitudes", 4), ("shape longitudes", 4), ("shape node ids", 8),
         ("segment lengths", 8), ("segment way ids", 8), ("segment names", 4), ("segment classes", 1)]
p = bytes(b[24:]); at = 4 + struct.unpack_from("<I", p, 0)[0]
turn_costs = at; at += 32
if column == "turn costs":
    target = turn_costs + 8 * int(index)
else:
    for name, size in sizes:
        at = (at + 7) & ~7
        n = struct.unpack_from("<Q", p, at)[0]; at += 8
        if name == column: assert int(index) < n; target = at + size * int(index); break
        at += n * size
v = float(value) if fmt[-1] in "fd" else int(value, 0)
struct.pack_into(fmt, b, 24 + target, v)
struct.pack_into("<I", b, 16, zlib.crc32(bytes(b[24:])) & 0xFFFFFFFF)
open(dst, "wb").write(b)
PY
}
for patch in "shape offsets:1:<I:0xFFFFFFFF" "shape offsets:2:<I:0xFFFFFFFE" "node latitudes:0:<i:2000000000" "shape latitudes:0:<i:-2000000000" \
             "edge weights:0:<f:nan" "edge weights:2:<f:-1e30" "edge durations:1:<f:inf" "turn costs:0:<d:nan" "turn costs:3:<d:1e300" "segment lengths:0:<d:-1"; do
  IFS=: read -r column index fmt value <<<"$patch"
  name="graph-${column// /-}-$index.graph"
  graph_patch "$T/city.graph" "$T/$name" "$column" "$index" "$fmt" "$value"
  check file-error "$name" "$T/stdout" "$T/empty" route --graph "$T/$name" --from "$FROM" --to "$TO"
  check file-error "$name" "$T/stdout" "$T/empty" match --graph "$T/$name" "$T/drive.gpx"
done

# geo match: one tracepoint and one --online line per fix, null for a point without a usable
# position, and a warning with its line.
points=$(grep -c '<trkpt' "$T/drive.gpx")
for bad in 'lat="NaN"' 'lat="91"' 'lat="inf"' 'lat="1e308"' 'lon="1e20"'; do
  name="bad-${bad%%=*}-$(tr -dc 'a-zA-Z0-9' <<<"${bad#*=}").gpx"
  # The 10th point's attribute replaced; the line it is on is named in the warning.
  python3 - "$T/drive.gpx" "$T/$name" "$bad" <<'PY'
import re, sys
src, dst, bad = sys.argv[1:4]
text = open(src).read(); key = bad.split("=")[0]
starts = [m.start() for m in re.finditer(r"<trkpt", text)]
at = starts[9]; end = text.index(">", at)
open(dst, "w").write(text[:at] + re.sub(key + r'="[^"]*"', bad, text[at:end], count=1) + text[end:])
PY
  line=$(grep -n '<trkpt' "$T/$name" | sed -n 10p | cut -d: -f1)
  run_geo "$T/stdout" "$T/empty" match --graph "$T/city.graph" "$T/$name"
  got=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["tracepoints"]; print(len(t), t[9] is None)' "$T/stdout" 2>/dev/null)
  expect "match $name: $points tracepoints, the 10th null" '[ "$got" = "$points True" ] && grep -qF "$name:$line" <<<"$ERR"' "got ${got:-no JSON} of $points; stderr: ${ERR:0:60}"
  run_geo "$T/stdout" "$T/empty" match --graph "$T/city.graph" "$T/$name" --online
  got=$(wc -l <"$T/stdout"); tenth=$(sed -n 10p "$T/stdout")
  expect "match --online $name: $points lines, the 10th null" '[ "$got" = "$points" ] && [[ "$tenth" == "{\"matched\":null"* ]]' "$got lines of $points"
done
printf 'lat,lon,time\n47.998,10.997,1714557600\n47.999,10.998,1e300\n' >"$T/far-time.csv"
check error "far-time.csv:3" "$T/stdout" "$T/empty" match --graph "$T/city.graph" "$T/far-time.csv"
printf '{"type":"Feature","properties":{"coordTimes":["2024-05-01T10:00:00Z"]},"geometry":{"type":"LineString","coordinates":[[10.997,47.998],[10.998,47.999]]}}\n' >"$T/short-times.geojson"
check error "coordTimes" "$T/stdout" "$T/empty" match --graph "$T/city.graph" "$T/short-times.geojson"
printf '{"type":"Feature","properties":{"coordTimes":[true,"2024-05-01T10:00:01Z"]},"geometry":{"type":"LineString","coordinates":[[10.997,47.998],[10.998,47.999]]}}\n' >"$T/typed-times.geojson"
check error "coordTimes[0]" "$T/stdout" "$T/empty" match --graph "$T/city.graph" "$T/typed-times.geojson"
printf '{"type":"Feature","properties":{"coordTimes":"2024-05-01T10:00:00Z"},"geometry":{"type":"LineString","coordinates":[[10.997,47.998],[10.998,47.999]]}}\n' >"$T/string-times.geojson"
check error "coordTimes" "$T/stdout" "$T/empty" match --graph "$T/city.graph" "$T/string-times.geojson"

# geo beacons: a century between two advertisements is a bounded number of reports, not 3·10⁹; a time outside
# the years 0001–9999 is refused with its line.
IBEACON=0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5
printf '{"time":"2024-05-01T10:00:00Z","address":"C4:7C:8D:6A:3E:01","rssi":-59,"data":"%s"}\n{"time":"2124-05-01T10:00:00Z","address":"C4:7C:8D:6A:3E:01","rssi":-59,"data":"%s"}\n' "$IBEACON" "$IBEACON" >"$T/century.jsonl"
# Standard output to a file only after the command ends: the old replay wrote gigabytes.
run_geo /dev/null "$T/empty" beacons --source "replay:$T/century.jsonl"
expect "beacons replay: a century's gap ends" '[ "$RC" = 0 ]' "exit $RC"
if [ "$RC" = 0 ]; then
  run_geo "$T/stdout" "$T/empty" beacons --source "replay:$T/century.jsonl"
  got=$(wc -l <"$T/stdout"); empty=$(grep -c '"beacons":\[\]' "$T/stdout")
  # Issue 33: an empty report 30 s (beaconExitDelay) + 1 interval after each last advertisement,
  # and the gap's last second: three empty reports, about 30 reports in range around each.
  expect "  …reports while in range, an empty one after each, the gap's end" '[ "$got" -lt 100 ] && [ "$empty" = 3 ]' "$got reports, $empty empty"
fi
check error "--interval" "$T/stdout" "$T/empty" beacons --source bluez: --for 1e9 --interval 1e-300
for t in "0000-12-31T23:59:59Z" "10000-01-01T00:00:00Z"; do
  printf '{"time":"2024-05-01T10:00:00Z","address":"C4:7C:8D:6A:3E:01","rssi":-59,"data":"%s"}\n{"time":"%s","address":"C4:7C:8D:6A:3E:01","rssi":-59,"data":"%s"}\n' "$IBEACON" "$t" "$IBEACON" >"$T/year.jsonl"
  run_geo /dev/null "$T/empty" beacons --source "replay:$T/year.jsonl"
  verdict error "line 2"; row "beacons replay: time $t is refused with its line"
done

# geo visits: a track out of time order, or without times, is said to be so.
python3 - "$T/stay.gpx" "$T" <<'PY'
import random, re, sys
text = open(sys.argv[1]).read(); out = sys.argv[2]
points = re.findall(r"<trkpt.*?</trkpt>", text)
head, tail = text[:text.index(points[0])], text[text.index(points[-1]) + len(points[-1]):]
shuffled = points[:]; random.Random(36).shuffle(shuffled)
for name, ps in (("reversed", points[::-1]), ("shuffled", shuffled), ("untimed", [re.sub(r"<time>.*?</time>", "", p) for p in points])):
    open(f"{out}/stay-{name}.gpx", "w").write(head + "\n".join(ps) + tail)
PY
check error "stay-reversed.gpx" "$T/stdout" "$T/empty" visits "$T/stay-reversed.gpx"
check error "stay-shuffled.gpx" "$T/stdout" "$T/empty" visits "$T/stay-shuffled.gpx"
check error "stay-untimed.gpx" "$T/stdout" "$T/empty" visits "$T/stay-untimed.gpx"

# PMTiles headers and MBTiles metadata that cannot be right: an error naming the field.
pmtiles_patch() { python3 -c 'import sys; b=bytearray(open(sys.argv[1],"rb").read()); b[int(sys.argv[3])]=int(sys.argv[4]); open(sys.argv[2],"wb").write(b)' "$@"; }
pmtiles_patch "$T/city.pmtiles" "$T/zooms-crossed.pmtiles" 100 14
check file-error "min_zoom" "$T/stdout" "$T/empty" snapshot --data "$T/zooms-crossed.pmtiles" --size 32x32 -o "$T/x.png"
pmtiles_patch "$T/city.pmtiles" "$T/zoom-40.pmtiles" 101 40
check file-error "max_zoom" "$T/stdout" "$T/empty" snapshot --data "$T/zoom-40.pmtiles" --size 32x32 -o "$T/x.png"
pmtiles_patch "$T/city.pmtiles" "$T/type-99.pmtiles" 99 99
check file-error "tile type" "$T/stdout" "$T/empty" snapshot --data "$T/type-99.pmtiles" --size 32x32 -o "$T/x.png"
mbtiles_meta() { # SRC DST NAME=VALUE… (an empty VALUE: the field deleted)
  cp "$1" "$2"; local dst="$2"; shift 2
  python3 - "$dst" "$@" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for field in sys.argv[2:]:
    name, value = field.split("=", 1)
    db.execute("DELETE FROM metadata WHERE name = ?", (name,))
    if value: db.execute("INSERT INTO metadata (name, value) VALUES (?, ?)", (name, value))
db.commit()
PY
}
mbtiles_meta "$T/city.mbtiles" "$T/nan-bounds.mbtiles" "bounds=NaN,NaN,NaN,NaN" "center="
check file-error "bounds" "$T/stdout" "$T/empty" snapshot --data "$T/nan-bounds.mbtiles" --size 32x32 -o "$T/x.png"
mbtiles_meta "$T/city.mbtiles" "$T/nan-center.mbtiles" "center=NaN,48,13"
check file-error "center" "$T/stdout" "$T/empty" snapshot --data "$T/nan-center.mbtiles" --size 32x32 -o "$T/x.png"
mbtiles_meta "$T/city.mbtiles" "$T/minzoom-99.mbtiles" "minzoom=99"
check file-error "minzoom" "$T/stdout" "$T/empty" snapshot --data "$T/minzoom-99.mbtiles" --size 32x32 -o "$T/x.png"

# geo monitor: the world box is refused by the stated rule, not as "zero area"; a .geojson file
# is JSON (an Osmosis .poly text in one is refused); two regions with one identifier are refused.
printf '{"type":"Feature","properties":{"name":"world"},"geometry":{"type":"Polygon","coordinates":[[[-180,-90],[180,-90],[180,90],[-180,90],[-180,-90]]]}}\n' >"$T/world.geojson"
check file-error "shorter way round" "$T/stdout" "$T/empty" monitor --regions "$T/world.geojson" --source "gpx:$T/drive.gpx?speed=max"
printf '{"type":"Feature","properties":{"name":"north"},"geometry":{"type":"Polygon","coordinates":[[[-170,80],[-50,80],[70,80],[-170,80]]]}}\n' >"$T/round-pole.geojson"
check file-error "round a pole" "$T/stdout" "$T/empty" monitor --regions "$T/round-pole.geojson" --source "gpx:$T/drive.gpx?speed=max"
printf 'fence\n1\n  10.99 47.99\n  11.01 47.99\n  11.01 48.01\n  10.99 48.01\n  10.99 47.99\nEND\nEND\n' >"$T/poly-text.geojson"
check file-error "poly-text.geojson" "$T/stdout" "$T/empty" monitor --regions "$T/poly-text.geojson" --source "gpx:$T/drive.gpx?speed=max"
f='{"type":"Feature","properties":{"name":"fence"},"geometry":{"type":"Polygon","coordinates":[[[10.99,47.99],[11.01,47.99],[11.01,48.01],[10.99,48.01],[10.99,47.99]]]}}'
printf '{"type":"FeatureCollection","features":[%s,%s]}\n' "$f" "$f" >"$T/twice.geojson"
check file-error "identifier 'fence'" "$T/stdout" "$T/empty" monitor --regions "$T/twice.geojson" --source "gpx:$T/drive.gpx?speed=max"

# geo serve-tracking (issue 35): a fences file, a roads file or a webhook URL it cannot use is an
# error naming it before anything is served.
printf '{"type":"Feature","properties":{"name":"home"},"geometry":{"type":"Point","coordinates":[11,48]}}\n' >"$T/no-radius.geojson"
check file-error "no-radius.geojson" "$T/stdout" "$T/empty" serve-tracking --db "$T/t.sqlite" --port 0 --fences "$T/no-radius.geojson"
check file-error "drive.gpx" "$T/stdout" "$T/empty" serve-tracking --db "$T/t.sqlite" --port 0 --roads "$T/drive.gpx"
printf '%s\n' "$f" >"$T/one-fence.geojson"
check error "not http://" "$T/stdout" "$T/empty" serve-tracking --db "$T/t.sqlite" --port 0 --fences "$T/one-fence.geojson" --webhook ftp://127.0.0.1/x

# OSM nodes outside WGS84's range are counted as such, not only as ways with missing nodes.
printf '<?xml version="1.0"?>\n<osm version="0.6"><node id="1" lat="95" lon="11"/><node id="2" lat="48" lon="11.001"/><node id="3" lat="48.001" lon="11.001"/>\n<way id="1"><nd ref="1"/><nd ref="2"/><nd ref="3"/><tag k="highway" v="residential"/></way></osm>\n' >"$T/far-node.osm"
run_geo "$T/stdout" "$T/empty" tiles build "$T/far-node.osm" -o "$T/far-node.pmtiles" --minzoom 12 --maxzoom 12
expect "tiles build far-node.osm: says 1 node is out of range" '[ "$RC" = 0 ] && grep -q "1 nodes with a position out of range" <<<"$ERR"' "exit $RC; ${ERR:0:70}"
# --- 6. bombs, work limits, special files (issue 36: 2, 5, 9) --------------------------------

# Inputs made here by python3: gzip bombs are gzip members of one mebibyte each, concatenated
# (RFC 1952 §2.2), so a few megabytes of file are gigabytes of data.
python3 - "$T/city.mbtiles" "$T" <<'PY' || { echo "faults.sh: cannot make the bomb inputs" >&2; exit 1; }
import gzip, shutil, sqlite3, sys
city, t = sys.argv[1], sys.argv[2]
zeros = gzip.compress(bytes(1 << 20), 9)           # 1 MiB of zeros in about 1 KiB
# A tile of 3.5 MB that inflates to 3.5 GB, in place of the tile at the archive's centre.
shutil.copy(city, f"{t}/bomb.mbtiles")
db = sqlite3.connect(f"{t}/bomb.mbtiles")
lon, lat, _ = (float(v) for v in db.execute("SELECT value FROM metadata WHERE name = 'center'").fetchone()[0].split(","))
import math
n = 1 << 13
x = int((lon + 180) / 360 * n); y = int((1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * n)
db.execute("UPDATE tiles SET tile_data = ? WHERE zoom_level = 13 AND tile_column = ? AND tile_row = ?", (zeros * 3500, x, n - 1 - y))
assert db.total_changes == 1, "no tile at the centre"
db.commit()
open(f"{t}/bomb-tile", "w").write(f"13/{x}/{y}")
# .osm.gz of 3 MB holding 3 GB of XML: one attribute value, or one comment, of 3 GiB.
a = gzip.compress(b"a" * (1 << 20), 9)
for name, head, tail in [("bomb-attribute", b'<osm version="0.6"><node id="1" lat="0" lon="0"><tag k="a" v="', b'"/></node></osm>\n'),
                         ("bomb-comment", b'<osm version="0.6"><!-- ', b' --><node id="1" lat="0" lon="0"/></osm>\n')]:
    with open(f"{t}/{name}.osm.gz", "wb") as f:
        f.write(gzip.compress(head)); f.write(a * 3072); f.write(gzip.compress(tail))
# One natural=water way around the whole world: 396 bytes of OSM.
with open(f"{t}/world.osm", "w") as f:
    f.write('<osm version="0.6">\n')
    for i, (lat, lon) in enumerate([(-85, -179.9), (-85, 179.9), (85, 179.9), (85, -179.9)], 1):
        f.write(f' <node id="{i}" lat="{lat}" lon="{lon}"/>\n')
    f.write(' <way id="1"><nd ref="1"/><nd ref="2"/><nd ref="3"/><nd ref="4"/><nd ref="1"/><tag k="natural" v="water"/></way>\n</osm>\n')
PY
BOMB_TILE="$(cat "$T/bomb-tile")"
# Issue 36 item 2: a gzip bomb is one tile's error (a warning naming it, the rest drawn) or, in
# a stream, an error naming the file, in bounded memory (peak under 512 MB).
RSS_MB=512 check warn "tile $BOMB_TILE" "$T/stdout" "$T/empty" snapshot --data "$T/bomb.mbtiles" --zoom 13 --size 256x256 -o "$T/x.png"
[ -s "$T/x.png" ] || { RC=0 ERR="no image"; WHY="nothing drawn"; row "snapshot over a bomb tile draws the rest"; }
RSS_MB=512 check warn "tile $BOMB_TILE" "$T/stdout" "$T/empty" tiles render "$T/bomb.mbtiles" --zoom 13 -o "$T/bomb-render"
for bomb in bomb-attribute bomb-comment; do
  RSS_MB=512 check error "$bomb.osm.gz" "$T/stdout" "$T/empty" tiles build "$T/$bomb.osm.gz" -o "$T/x.pmtiles"
  RSS_MB=512 check error "$bomb.osm.gz" "$T/stdout" "$T/empty" extract "$T/$bomb.osm.gz" -o "$T/x.graph"
  RSS_MB=512 check error "$bomb.osm.gz" "$T/stdout" "$T/empty" snapshot --data "$T/$bomb.osm.gz" --size 32x32 -o "$T/x.png"
done
# Item 5: a world-sized polygon costs its outline, not its 2^28 tiles at zoom 14; PMTiles
# stores the filled squares as runs (a small file), MBTiles (a row per tile) refuses past its cap.
check ok "" "$T/stdout" "$T/empty" tiles build "$T/world.osm" -o "$T/world.pmtiles" --maxzoom 14
size=$(stat -c %s "$T/world.pmtiles" 2>/dev/null || echo 0)
if [ "$size" -eq 0 ] || [ "$size" -gt 1000000 ]; then RC=1 ERR="$size bytes"; WHY="not a small archive"; row "tiles build world.osm: the archive is small"; fi
check error "world.mbtiles" "$T/stdout" "$T/empty" tiles build "$T/world.osm" -o "$T/world.mbtiles" --maxzoom 14
# Item 9: -o a FIFO is opened once (its reader gets the archive), scratch files have unique
# names (a file squatting the old fixed name in $TMPDIR does not matter), SIGINT and SIGTERM
# leave no scratch file, a graph file is read no further than its header says.
mkfifo "$T/out-fifo.pmtiles"; mkdir -p "$T/tmpdir/.geo-tiles.features"
(cat "$T/out-fifo.pmtiles" >"$T/from-fifo.pmtiles" &)
TMPDIR="$T/tmpdir" check ok "" "$T/stdout" "$T/empty" tiles build "$T/city.osm.pbf" -o "$T/out-fifo.pmtiles" --minzoom 12 --maxzoom 13
(exec 3<>"$T/out-fifo.pmtiles") 2>/dev/null # a reader still waiting for a writer
sleep 0.2
cmp -s "$T/from-fifo.pmtiles" "$T/city.pmtiles" || { RC=1 ERR="the reader got $(stat -c %s "$T/from-fifo.pmtiles") bytes"; WHY="not the archive"; row "tiles build -o FIFO: the reader gets the archive"; }
# The input never ends, so the build is under way (its scratch file made) when the signal
# comes; and a build into MBTiles stopped while it writes the tiles.
signalled() { # SIG OUT ARGS…: runs geo with SIGINT at its default action, signals it after 1 s
  local sig="$1" out="$2"; shift 2
  rm -rf "$T/sig" && mkdir "$T/sig"
  python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' \
    timeout -k 5 "$LIMIT" "$GEO" "$@" -o "$T/sig/$out" >/dev/null 2>"$T/stderr" & local pid=$!
  sleep 1; kill -"$sig" "$pid" 2>/dev/null; wait "$pid"; RC=$?
  local left; left="$(ls -A "$T/sig" | tr '\n' ' ')"; ERR="${left:-nothing left}"
  WHY=""; [ -z "$left" ] || WHY="left $left"
  row "$(printf '%s ' "$@" | sed "s|$T/||g") -o $out, SIG$sig: no scratch file"
}
for sig in INT TERM; do
  rm -f "$T/sig-in.osm" && mkfifo "$T/sig-in.osm"
  (sleep 10 >"$T/sig-in.osm" &)
  signalled "$sig" scratch.pmtiles tiles build "$T/sig-in.osm"
  (exec 3<>"$T/sig-in.osm") 2>/dev/null
  signalled "$sig" world.mbtiles tiles build "$T/world.osm" --maxzoom 10
done
for graph in /dev/zero /dev/urandom; do
  RSS_MB=512 check file-error "$graph" "$T/stdout" "$T/empty" route --graph "$graph" --from "$FROM" --to "$TO"
  RSS_MB=512 check file-error "$graph" "$T/stdout" "$T/pairs" match --graph "$graph" "$T/drive.gpx"
done
echo keep >"$T/afile"
check file-error "-o $T/afile" "$T/stdout" "$T/empty" tiles render "$T/city.pmtiles" --zoom 13 -o "$T/afile"
[ "$(cat "$T/afile")" = keep ] || { RC=1 ERR="changed"; WHY="-o file changed"; row "tiles render -o FILE leaves the file"; }

echo "faults.sh: $cases cases, $((cases - failures)) pass, $failures fail"
[ "$failures" -eq 0 ]
