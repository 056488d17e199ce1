#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Builds the WebAssembly package and the playground from the library's
# sources, unchanged (src/sources.txt), with Debian's emscripten:
#
#   web/build.sh OUT        (OUT: a directory, created; e.g. build/web)
#
#   OUT/package/      the npm package: index.js, index.d.ts, package.json,
#                     README.md and cuckoofilter.wasm (library + web/src/cfjs.c)
#   OUT/playground/   the static page: web/playground/*, report.wasm (library +
#                     the report's experiment/ + web/src/report_js.c), and the
#                     package under cuckoofilter/
#
# Both modules are standalone WebAssembly (no emscripten JavaScript): the
# package's own loader gives them the handful of imports they have, the same
# way in Node and in browsers.  The file layer (src/io/) is compiled but
# nothing exported reaches it, so the linker drops it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: web/build.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
command -v emcc >/dev/null || { echo "web/build.sh: emcc not found (Debian: emscripten; scripts/deps.sh installs it)" >&2; exit 2; }
# Debian's emcc runs its JavaScript optimizer with node, which must find
# Debian's acorn (node-acorn).
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
# The system-library cache: Debian's shared one when this user may write it,
# else one in OUT (built once, about a minute).
if [ -z "${EM_CACHE:-}" ] && [ ! -w /usr/share/emscripten/cache ]; then export EM_CACHE=$out/emcache; fi

obj=$out/obj
rm -rf "$obj" && mkdir -p "$obj/xxhash" "$out/package" "$out/playground"
# xxhash.h alone: -I/usr/include would put glibc's headers before
# emscripten's libc.
cp /usr/include/xxhash.h "$obj/xxhash/"

# -Oz and emmalloc keep the package's .wasm under 64 KB (docs/BENCHMARKS.md,
# "JavaScript package", has its sizes and speed).  Only the library's own
# files see its internal headers (src/) and xxHash.
# (No -O here: emcc given -Oz anywhere on a line also turns inlining off,
# so each object names one level, size or speed.)
# -mnontrapping-fptoint: conversions of doubles to integers are one
# instruction, not a range test around one (all engines since 2019).
cflags=(-std=c11 -Wall -Wextra -Werror -mnontrapping-fptoint -I"$root/include")
size=(-Oz)
# CF_EXPERIMENTAL_API: the library defines the header's experimental tier
# (the inspection calls the playground draws with), as its CMake build does.
libflags=(-I"$root/src" -I"$obj/xxhash" -DCF_EXPERIMENTAL_API)
ldflags=(-sMALLOC=emmalloc --no-entry -sSTANDALONE_WASM -sFILESYSTEM=0 -sALLOW_MEMORY_GROWTH=1
         -sMAXIMUM_MEMORY=4GB -Wl,--gc-sections -Werror)

# Each group of files sharing flags is one emcc call, each in its own
# directory (file names are unique across the tree, so objects are too):
# starting emcc costs more than compiling one of these files.  The big
# group runs beside the others (the machines here have two cores).
group() { # name flags... -- files...
  local dir=$obj/$1 flags=()
  shift
  while [[ $1 != -- ]]; do flags+=("$1"); shift; done
  shift
  mkdir -p "$dir"
  (cd "$dir" && emcc "${cflags[@]}" "${flags[@]}" -c "$@")
}

# The files of the hot paths (bulk lookups and inserts, the eviction
# search) are compiled for speed: at -Oz they run 2 to 3 times slower in
# WebAssembly, and the rest of the library at -O2 would double the module.
# (table/table.c at -O2 made no bulk call faster: docs/BENCHMARKS.md.)
# evict.c is compiled twice, each copy keeping one of its two entry points
# (the other renamed, unused, dropped by the linker): the insert's search at
# -O2, the traced insert's (the playground's, a key at a time) at -Oz; both
# at -O2 cost 4 KB.
hot=" table/batch.c table/evict.c "
speed=(-O2 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize)
small=() fast=()
while read -r f; do
  [[ -z $f || $f == \#* ]] && continue
  if [[ $hot == *" $f "* ]]; then fast+=("$root/src/$f"); else small+=("$root/src/$f"); fi
done <"$root/src/sources.txt"
# The playground's experiment: the report of `cuckoo report`, compiled from
# experiment/ and the CLI's number printing (cli_base/cli_base.c), driven by
# report_js.c.  Not its charts (report_plot.c writes files for gnuplot) nor
# its option parsing (report_run.c).  All for speed, and the library's key
# operations and Bloom filter too: the page runs the article's experiment,
# 66 filters of 262,144 slots.
report_lib=(api/ops.c bloom/bloom.c)
group lib "${libflags[@]}" "${size[@]}" -- "${small[@]}" &
big=$!
group hot "${libflags[@]}" "${speed[@]}" -Dcf__evict_insert_traced=cf__evict_insert_traced_unused -- "${fast[@]}"
group evict_traced "${libflags[@]}" "${size[@]}" -Dcf__evict_insert=cf__evict_insert_unused -- "$root/src/table/evict.c"
group glue -DCF_EXPERIMENTAL_API "${size[@]}" -- "$root"/web/src/cfjs{,_config,_explain}.c
group report_lib "${libflags[@]}" "${speed[@]}" -- "${report_lib[@]/#/$root/src/}"
group report -D_GNU_SOURCE -I"$root/experiment" -I"$root/cli_base" "${speed[@]}" -- \
  "$root"/experiment/report_{fill,compare,buckets,fields,csv,text,util}.c \
  "$root/cli_base/cli_base.c" "$root/web/src/report_js.c"
wait $big
libobjs=("$obj"/lib/*.o "$obj"/hot/*.o "$obj"/evict_traced/*.o)
repobjs=("$obj"/report_lib/*.o "$obj"/report/*.o)

# The package: the library's calls it makes, and cfjs.c's; and the module
# it loads only to explain a refused configuration (cfjs.h says why apart).
# Then the playground's.  Linked two at a time.
exports=(cf_insert cf_contains cf_delete cf_count cf_clear cf_free cf_serialized_size
         cf_serialize cf_deserialize cf_strerror cf_status_name cf_version_string malloc free)
list=$(printf '_%s,' "${exports[@]}")
(
  emcc "${ldflags[@]}" -Oz "${libobjs[@]}" "$obj/glue/cfjs.o" "$obj/glue/cfjs_config.o" \
    -o "$obj/cuckoofilter.wasm" -sEXPORTED_FUNCTIONS="${list%,}"
  # binaryen's size passes until nothing changes: 1% smaller again.
  wasm-opt --enable-nontrapping-float-to-int -Oz --converge "$obj/cuckoofilter.wasm" \
    -o "$out/package/cuckoofilter.wasm"
) &
package=$!
emcc "${ldflags[@]}" -Oz "${libobjs[@]}" "$obj/glue/cfjs_explain.o" "$obj/glue/cfjs_config.o" \
  -o "$out/package/explain.wasm" -sEXPORTED_FUNCTIONS=_malloc,_free
reportlib=()
for o in "${libobjs[@]}"; do
  [[ " ${report_lib[*]##*/} " == *" $(basename "$o" .o).c "* ]] || reportlib+=("$o")
done
emcc "${ldflags[@]}" -O2 "${reportlib[@]}" "${repobjs[@]}" \
  -o "$out/playground/report.wasm" -sEXPORTED_FUNCTIONS=_malloc,_free
wait $package
bytes=$(stat -c %s "$out/package/cuckoofilter.wasm")
# The budget: 64 KiB from issue 35; 66 KiB since expiring filters reached
# the package (issue 37: the clock, and the refresh that cf_insert_unique's
# paths for every kind bring, 1.7 KB); 67 KiB since tables past 2 MiB
# balance their buckets (issue 34: every insert path asks which bucket to
# fill, 0.5 KB; docs/BENCHMARKS.md); 69 KiB since grown filters owe the
# deletes they cannot yet carry out (issue 48: the ledger, its rules and its
# file form, version 8, 2.8 KB, of which the ledger's checksum shares the
# library's one streaming XXH3: its own copy cost 1 KB more).
if ((bytes > 70656)); then
  echo "web/build.sh: cuckoofilter.wasm is $bytes bytes, over its 69 KiB budget (issues 35, 37, 34 and 48; docs/BENCHMARKS.md)" >&2
  exit 1
fi
cp "$root"/web/package/{index.js,index.d.ts,package.json,README.md} "$out/package/"
cp "$root"/web/playground/*.{html,js,css} "$out/playground/"
rm -rf "$out/playground/cuckoofilter"
cp -r "$out/package" "$out/playground/cuckoofilter"
echo "web/build.sh: $out/package ($(stat -c %s "$out/package/cuckoofilter.wasm") bytes of .wasm), $out/playground"
