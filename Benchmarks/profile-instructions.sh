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
# N is 1000 unless given; the options (--queue minimal, --in-flight K,
# --journal DIRECTORY) go to purchase-profile. PROFILE_TOP sets how many of
# the costliest functions are listed after the groups (25). Needs valgrind
# (callgrind_annotate comes with it).
set -euo pipefail
cd "$(dirname "$0")"

count=1000
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
    count=$((10#$1))
    shift
fi
if ((count < 1)); then
    echo "profile-instructions.sh: N must be at least 1" >&2
    exit 2
fi
for option in "$@"; do
    if [[ $option == --purchases ]]; then
        echo "profile-instructions.sh: give the number of purchases as N, not --purchases" >&2
        exit 2
    fi
done
command -v valgrind >/dev/null || { echo "profile-instructions.sh needs valgrind" >&2; exit 2; }

swift build -c release --product purchase-profile >/dev/null
binary="$(swift build -c release --show-bin-path)/purchase-profile"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The self cost of every function, one line each: instructions, the
# library's file name, and the function's name, demangled when the toolchain
# can (tab-separated).
profile() {
    local status=0
    valgrind --tool=callgrind --callgrind-out-file="$work/$1.out" "$binary" --purchases "$1" "${@:2}" \
        >"$work/$1.txt" 2>"$work/$1.err" || status=$?
    if ((status != 0)); then
        echo "profile-instructions.sh: the round of $1 purchases failed (status $status):" >&2
        tail -n 20 "$work/$1.err" >&2
        exit 1
    fi
    if ! callgrind_annotate --auto=no --threshold=100 "$work/$1.out" >"$work/$1.annotated" 2>"$work/$1.err"; then
        echo "profile-instructions.sh: callgrind_annotate could not read the round of $1 purchases:" >&2
        tail -n 20 "$work/$1.err" >&2
        exit 1
    fi
    awk '/^ *[0-9,]+ \( *[0-9.]+%\)  / && !/PROGRAM TOTALS/ {
        cost = $1; gsub(",", "", cost)
        line = $0
        sub(/^ *[0-9,]+ +\( *[0-9.]+%\) +/, "", line)
        library = ""
        if (match(line, / \[[^]]*\]$/)) {
            library = substr(line, RSTART + 2, RLENGTH - 3)
            line = substr(line, 1, RSTART - 1)
            sub(/.*\//, "", library)
        }
        sub(/^[^:]*:/, "", line)   # the source file, when callgrind knows it
        printf "%s\t%s\t%s\n", cost, library, line
    }' "$work/$1.annotated" | { swift demangle 2>/dev/null || cat; } >"$work/$1.self"
    if [[ ! -s $work/$1.self ]]; then
        echo "profile-instructions.sh: no function costs read from the round of $1 purchases" >&2
        exit 1
    fi
}
profile "$count" "$@"
profile "$((3 * count))" "$@"
echo "Timed under valgrind, many times slower than without it: $(cat "$work/$((3 * count)).txt")"

# Each function's instructions in the larger round less the smaller one's,
# a purchase's share of them, grouped by what they do. A function is counted
# in the first group its name (or its library) matches; a specialization,
# closure, partial function or witness counts as the function it is of.
awk -F '\t' -v purchases="$((2 * count))" -v functions="$work/functions" '
function owner(name) {
    while (1) {
        if (sub(/^(merged |static |\(extension in [^)]*\):)/, "", name)) continue
        if (sub(/^\([0-9]+\) (await|suspend) resume partial function for /, "", name)) continue
        if (sub(/^(implicit )?closure #[0-9]+ (\([^)]*\) )?in /, "", name)) continue
        if (sub(/^(partial apply for |protocol witness for |reabstraction thunk helper from |thunk for |dispatch thunk of )/, "", name)) continue
        if (name ~ /^(generic|function signature) specialization /) {
            if (match(name, /> of /)) { name = substr(name, RSTART + 5); continue }
        }
        return name
    }
}
function group(library, name,    own) {
    own = owner(name)
    if (own ~ /^Swift\.(Hasher|__RawDictionaryStorage|_NativeDictionary|_NativeSet|Set|Dictionary|_stringCompare|String\.hash|Int\._rawHashValue)/ || own ~ /^_?_?memcmp/) return "hash tables: hashing keys, probing, comparing"
    if (own ~ /^(swift_retain|swift_release|swift_bridgeObject|swift_unknownObject|swift_nonatomic|swift_isUniquelyReferenced|bool swift::RefCounts|swift::RefCounts)/) return "reference counting"
    if (own ~ /^(swift_beginAccess|swift_endAccess|swift::runtime::AccessSet)/) return "exclusivity checks"
    if (own ~ /^(malloc|free|cfree|realloc|calloc|_int_malloc|_int_free|_int_realloc|malloc_consolidate|unlink_chunk|sysmalloc|tcache|swift_allocObject|swift_deallocObject|swift_deallocClassInstance|swift_slowAlloc|swift_slowDealloc)/) return "memory allocation"
    if (own ~ /^(outlined (copy|init with copy|init with take|destroy|consume|retain|release|assign)|initializeWithCopy|initializeWithTake|assignWithCopy|assignWithTake|destroy (value witness )?for|__memmove|__memcpy|__memset|memmove|memcpy|memset)/) return "copying and destroying values"
    if (own ~ /(pthread_mutex|pthread_cond|futex|lll_lock|lll_unlock)/) return "locks (mutexes, conditions)"
    if (library ~ /^(libswift_Concurrency|libdispatch)/ || own ~ /^(swift_task|swift_job|swift_continuation|__tls_get_addr|pthread)/) return "concurrency runtime: tasks, actors, continuations"
    if (own ~ /^PurchaseKitSimulator\./) return "the simulated store"
    if (own ~ /^(PurchaseKit|PurchaseRigs)\./) return "PurchaseKit code"
    return "everything else (standard library, Foundation, metadata)"
}
FNR == 1 { file++ }
{
    key = $2 "\t" $3
    if (file == 1) small[key] += $1; else large[key] += $1
    keys[key] = 1
}
END {
    for (key in keys) {
        split(key, parts, "\t")
        delta = large[key] - small[key]
        total += delta
        byGroup[group(parts[1], parts[2])] += delta
        printf "%8d  %s  [%s]\n", delta / purchases, parts[2], parts[1] > functions
    }
    printf "%d instructions a purchase\n", total / purchases
    for (g in byGroup) printf "%8d  %5.1f %%  %s\n", byGroup[g] / purchases, 100 * byGroup[g] / total, g | "sort -rn"
    close("sort -rn")
}' "$work/$count.self" "$work/$((3 * count)).self"

# The functions that cost most.
top="${PROFILE_TOP:-25}"
echo
echo "The $top costliest functions, instructions a purchase:"
sort -rn "$work/functions" | awk -v top="$top" 'NR <= top { print substr($0, 1, 200) }'
