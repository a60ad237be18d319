#!/bin/sh
# PBF read-all (issue 14): LocationKit against `osmium fileinfo -e` on the shared extracts, end to
# end as users run it (`geo osm info FILE`, process start to exit: it counts and measures without
# building elements, `OSMFileReader.statistics`) and in process (OSMBench: the element reader,
# building every node, way and relation with tags and metadata, one run per process),
# interleaved (osmium, geo, OSMBench, osmium, …) ROUNDS times so machine load hits all three
# alike; prints the median wall time of each and the ratios
# osmium time / LocationKit time (> 1: LocationKit is faster), and the median CPU time (user +
# system of the process and its threads, in ms) of osmium and geo: both decode blocks on
# several threads, so wall time can match while CPU time does not. Last, geo's start-up: the
# median CPU time of `geo osm info --help` (parsing, dynamic loading, runtime set-up; no file
# read). Needs osmium-tool, taskset (util-linux) and bash.
# Usage: Benchmarks/pbf.sh [ROUNDS] [FILE…]   (default 5 rounds over $LOCATIONKIT_DATA/osm/*.osm.pbf)
set -e
cd "$(dirname "$0")/.."
DATA="${LOCATIONKIT_DATA:-../shared/data}"
ROUNDS="${1:-5}"
[ $# -gt 0 ] && shift
FILES="$*"
[ -n "$FILES" ] || FILES=$(ls "$DATA"/osm/*.osm.pbf)

swift build -c release --product geo >/dev/null
GEO="$(swift build -c release --show-bin-path)/geo"
swift build -c release --package-path Benchmarks --product OSMBench >/dev/null
BENCH="$(swift build -c release --package-path Benchmarks --show-bin-path)/OSMBench"

CPU="$(mktemp)"
trap 'rm -f "$CPU"' EXIT
seconds() { # wall time of a command (s), output discarded; its CPU time in ms (user + system) is left in $CPU
    # bash's `time` reads the child's rusage (ms digits); GNU time prints 10 ms steps.
    bash -c 'TIMEFORMAT="%3R %3U %3S"; { time "$@" >/dev/null 2>&1; } 2>"$0"' "$CPU" "$@"
    read -r wall user system <"$CPU"
    echo "($user + $system) * 1000" | bc -l >"$CPU"
    echo "$wall"
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for f in $FILES; do
    elements=$(osmium fileinfo -e -g data.count.nodes "$f")+$(osmium fileinfo -e -g data.count.ways "$f")+$(osmium fileinfo -e -g data.count.relations "$f")
    elements=$(echo "$elements" | bc)
    o=""; g=""; b=""; oc=""; gc=""
    i=0
    while [ $i -lt "$ROUNDS" ]; do
        o="$o $(seconds osmium fileinfo -e "$f")"; oc="$oc $(bc -l <"$CPU")"
        g="$g $(seconds "$GEO" osm info "$f")"; gc="$gc $(bc -l <"$CPU")"
        b="$b $("$BENCH" "$f" 1 | sed -n 's/.* in \([0-9.]*\) s .*/\1/p')"
        i=$((i + 1))
    done
    mo=$(echo "$o" | median); mg=$(echo "$g" | median); mb=$(echo "$b" | median)
    moc=$(echo "$oc" | median); mgc=$(echo "$gc" | median)
    printf '%s: %d elements; median of %d: osmium fileinfo -e %.3f s, geo osm info %.3f s (%.2fx osmium), OSMBench in process %.3f s (%.1f M elements/s, %.2fx osmium)\n' \
        "$(basename "$f")" "$elements" "$ROUNDS" "$mo" "$mg" "$(echo "$mo / $mg" | bc -l)" "$mb" \
        "$(echo "$elements / $mb / 1000000" | bc -l)" "$(echo "$mo / $mb" | bc -l)"
    printf '%s: median CPU time (user + system): osmium fileinfo -e %.1f ms, geo osm info %.1f ms (%.2fx osmium)\n' "$(basename "$f")" "$moc" "$mgc" "$(echo "$moc / $mgc" | bc -l)"
    # One core (a container with one CPU): decoding must not wait for a thread the CPU count
    # does not allow (geo took 0.84 s here when its workers were the global concurrent queue).
    o=""; g=""; i=0
    while [ $i -lt "$ROUNDS" ]; do
        o="$o $(seconds taskset -c 0 osmium fileinfo -e "$f")"
        g="$g $(seconds taskset -c 0 "$GEO" osm info "$f")"
        i=$((i + 1))
    done
    mo=$(echo "$o" | median); mg=$(echo "$g" | median)
    printf '%s: on one core (taskset -c 0), median of %d: osmium fileinfo -e %.3f s, geo osm info %.3f s (%.2fx osmium)\n' \
        "$(basename "$f")" "$ROUNDS" "$mo" "$mg" "$(echo "$mo / $mg" | bc -l)"
done
u=""; i=0
while [ $i -lt "$ROUNDS" ]; do
    seconds "$GEO" osm info --help >/dev/null; u="$u $(bc -l <"$CPU")"
    i=$((i + 1))
done
printf 'geo start-up (geo osm info --help): median CPU time %.1f ms\n' "$(echo "$u" | median)"
