#!/usr/bin/env bash
# Instructions an in-memory purchase costs, 64 in flight, counted by valgrind
# (callgrind), and what they go to. A busy machine does not change the count;
# random ids and the threads' interleaving move it by a few per cent (see
# Benchmarks/README.md: take the median of three). Two rounds are counted, of
# N and 3N purchases; their difference over 2N leaves out the process's
# start, the engine's launch and the catalog's load.
#
#   Benchmarks/profile-instructions.sh [N] [purchase-profile options]
#
# N is 1000 unless given; the options (--queue minimal, --in-flight K) go to
# purchase-profile. PROFILE_TOP sets how many of the costliest functions are
# listed after the groups (25). Needs valgrind (callgrind_annotate comes with it).
set -euo pipefail
cd "$(dirname "$0")"

count=1000
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
    count=$1
    shift
fi
command -v valgrind >/dev/null || { echo "profile-instructions.sh needs valgrind" >&2; exit 2; }

swift build -c release --product purchase-profile >/dev/null
binary="$(swift build -c release --show-bin-path)/purchase-profile"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The self cost of every function, one line each: instructions, then the
# function's name and the library it is in.
profile() {
    if ! valgrind --tool=callgrind --callgrind-out-file="$work/$1.out" "$binary" --purchases "$1" "${@:2}" \
        >"$work/$1.txt" 2>"$work/$1.err"; then
        grep -v '^==' "$work/$1.err" >&2
        exit 1
    fi
    callgrind_annotate --auto=no --threshold=100 "$work/$1.out" 2>/dev/null |
        awk '/^ *[0-9,]+ \( *[0-9.]+%\)  / && !/PROGRAM TOTALS/ { gsub(",", "", $1); print }' >"$work/$1.self"
}
profile "$count" "$@"
profile "$((3 * count))" "$@"
cat "$work/$((3 * count)).txt"

# Each function's instructions in the larger round less the smaller one's,
# a purchase's share of them, grouped by what they do. The groups are read
# from the names: a function is counted in the first group it matches.
awk -v purchases="$((2 * count))" '
function group(name) {
    if (name ~ /Hasher|hash4into|RawDictionaryStorage|NativeDictionary|NativeSet|Set._Variant|SetV|Dictionary._Variant|DictionaryV|stringCompare|memcmp/) return "hash tables: hashing keys, probing, comparing"
    if (name ~ /swift_retain|swift_release|bridgeObject|RefCounts|isUniquelyReferenced|swift_unknownObject/) return "reference counting"
    if (name ~ /swift_beginAccess|swift_endAccess|AccessSet/) return "exclusivity checks"
    if (name ~ /malloc|free|_int_|swift_allocObject|swift_deallocObject|swift_slowAlloc|swift_slowDealloc|unlink_chunk|tcache/) return "memory allocation"
    if (name ~ /memmove|memcpy|memset|initializeWithCopy|initializeWithTake|assignWithCopy|outlined copy|outlined init with copy|outlined destroy|outlined consume|destroy for|Wcp|Wxx|wcp|wxx/) return "copying and destroying values"
    if (name ~ /pthread_mutex|pthread_cond|futex|lll_lock|lll_unlock/) return "locks (mutexes, conditions)"
    if (name ~ /libswift_Concurrency|libdispatch|pthread|tls_get_addr|swift_task|swift_job|swift_continuation/) return "concurrency runtime: tasks, actors, continuations"
    if (name ~ /PurchaseKitSimulator/) return "the simulated store"
    if (name ~ /PurchaseKit/) return "PurchaseKit code"
    return "everything else (standard library, Foundation, metadata)"
}
FNR == 1 { file++ }
{
    name = $0
    sub(/^ *[0-9]+ +\( *[0-9.]+%\) +/, "", name)
    if (file == 1) small[name] += $1; else large[name] += $1
    names[name] = 1
}
END {
    for (name in names) {
        delta = large[name] - small[name]
        total += delta
        byGroup[group(name)] += delta
    }
    printf "%d instructions a purchase\n", total / purchases
    for (g in byGroup) printf "%8d  %5.1f %%  %s\n", byGroup[g] / purchases, 100 * byGroup[g] / total, g | "sort -rn"
    close("sort -rn")
    for (name in names) printf "%8d  %s\n", (large[name] - small[name]) / purchases, name >"'"$work/functions"'"
}' "$work/$count.self" "$work/$((3 * count)).self"

# The functions that cost most, demangled when the toolchain can.
echo
echo "The ${PROFILE_TOP:-25} costliest functions, instructions a purchase:"
sort -rn "$work/functions" | head -n "${PROFILE_TOP:-25}" | { swift demangle --simplified 2>/dev/null || cat; } | cut -c1-160
