#!/usr/bin/env bash
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
cflags=(-std=c11 -Wall -Wextra -Werror -I"$root/include")
size=(-Oz)
libflags=(-I"$root/src" -I"$obj/xxhash")
ldflags=(-sMALLOC=emmalloc --no-entry -sSTANDALONE_WASM -sFILESYSTEM=0 -sALLOW_MEMORY_GROWTH=1
         -sMAXIMUM_MEMORY=4GB -Wl,--gc-sections -Werror)

# Compiles in the background, two at a time (the machines here have two
# cores); finish waits for every one and fails if any did.
pids=()
compile() { # source object [extra flags]
  if ((${#pids[@]} >= 2)); then
    wait "${pids[0]}"
    pids=("${pids[@]:1}")
  fi
  emcc "${cflags[@]}" "${@:3}" -c "$1" -o "$2" &
  pids+=($!)
}
finish() {
  for p in "${pids[@]}"; do wait "$p"; done
  pids=()
}

# The files of the hot paths (bulk lookups and inserts, the eviction
# search) are compiled for speed: at -Oz they run 2 to 3 times slower in
# WebAssembly, and the rest of the library at -O2 would double the module.
hot=" table/batch.c table/table.c table/evict.c "
speed=(-O2 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize)
libobjs=()
while read -r f; do
  [[ -z $f || $f == \#* ]] && continue
  o=$obj/lib_${f//\//_}.o
  if [[ $hot == *" $f "* ]]; then
    compile "$root/src/$f" "$o" "${libflags[@]}" "${speed[@]}"
  else
    compile "$root/src/$f" "$o" "${libflags[@]}" "${size[@]}"
  fi
  libobjs+=("$o")
done <"$root/src/sources.txt"
for f in cfjs cfjs_config cfjs_explain; do compile "$root/web/src/$f.c" "$obj/$f.o" "${size[@]}"; done
# The playground's experiment: the report of `cuckoo report`, compiled from
# experiment/ and the CLI's number printing (tools/cli_util.c), driven by
# report_js.c.  Not its charts (report_plot.c writes files for gnuplot) nor
# its option parsing (report_run.c).
# All for speed, and the library's key operations and Bloom filter too:
# the page runs the article's experiment, 66 filters of 262,144 slots.
fast=" api/ops.c bloom/bloom.c "
repobjs=()
for f in $fast; do
  o=$obj/rep_lib_${f//\//_}.o
  compile "$root/src/$f" "$o" "${libflags[@]}" "${speed[@]}"
  repobjs+=("$o")
done
for f in experiment/report_{fill,compare,buckets,fields,csv,text,util}.c tools/cli_util.c \
         web/src/report_js.c; do
  o=$obj/rep_$(basename "$f" .c).o
  compile "$root/$f" "$o" -D_GNU_SOURCE -I"$root/experiment" -I"$root/tools" "${speed[@]}"
  repobjs+=("$o")
done
finish

# The package: the library's calls it makes, and cfjs.c's; and the module
# it loads only to explain a refused configuration (cfjs.h says why apart).
exports=(cf_insert cf_contains cf_delete cf_count cf_clear cf_free cf_serialized_size
         cf_serialize cf_deserialize cf_strerror cf_status_name cf_version_string malloc free)
list=$(printf '_%s,' "${exports[@]}")
emcc "${ldflags[@]}" -Oz "${libobjs[@]}" "$obj/cfjs.o" "$obj/cfjs_config.o" \
  -o "$obj/cuckoofilter.wasm" -sEXPORTED_FUNCTIONS="${list%,}"
# binaryen's size passes until nothing changes: 1% smaller again.
wasm-opt -Oz --converge "$obj/cuckoofilter.wasm" -o "$out/package/cuckoofilter.wasm"
bytes=$(stat -c %s "$out/package/cuckoofilter.wasm")
if ((bytes > 65536)); then
  echo "web/build.sh: cuckoofilter.wasm is $bytes bytes, over its 64 KiB budget (docs/BENCHMARKS.md)" >&2
  exit 1
fi
emcc "${ldflags[@]}" -Oz "${libobjs[@]}" "$obj/cfjs_explain.o" "$obj/cfjs_config.o" \
  -o "$out/package/explain.wasm" -sEXPORTED_FUNCTIONS=_malloc,_free
cp "$root"/web/package/{index.js,index.d.ts,package.json,README.md} "$out/package/"

reportlib=()
for o in "${libobjs[@]}"; do
  f=${o#$obj/lib_}
  f=${f%.o}
  [[ $fast == *" ${f/_//} "* ]] || reportlib+=("$o")
done
emcc "${ldflags[@]}" -O2 "${reportlib[@]}" "${repobjs[@]}" \
  -o "$out/playground/report.wasm" -sEXPORTED_FUNCTIONS=_malloc,_free
cp "$root"/web/playground/*.{html,js,css} "$out/playground/"
rm -rf "$out/playground/cuckoofilter"
cp -r "$out/package" "$out/playground/cuckoofilter"
echo "web/build.sh: $out/package ($(stat -c %s "$out/package/cuckoofilter.wasm") bytes of .wasm), $out/playground"
