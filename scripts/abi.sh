#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# abi.sh -- checks the shared library's binary interface against the
# committed baseline (abi/libcuckoofilter.abi), so that a change of a public
# struct, enum or signature, or a symbol added or removed, fails the suite
# unless the baseline is updated on purpose (with a CHANGELOG line; a change
# that breaks old binaries also needs a new SONAME major):
#   - every dynamic symbol the library exports starts with cf_ (the rest is
#     hidden: -fvisibility=hidden, CF_API);
#   - its SONAME is libcuckoofilter.so.<CF_VERSION_MAJOR>;
#   - abidiff (Debian: abigail-tools) finds no difference from the baseline.
#
# usage: scripts/abi.sh [BUILD_DIR]            check (default build/test-gcc, built
#                                              with debug info, as its preset is)
#        scripts/abi.sh --update [BUILD_DIR]   write the baseline from BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
update=false
if [ "${1:-}" = --update ]; then update=true; shift; fi
build=${1:-build/test-gcc}
baseline=abi/libcuckoofilter.abi
for tool in abidw abidiff nm readelf; do
  command -v "$tool" >/dev/null || { echo "abi: $tool not found (Debian: abigail-tools, binutils)" >&2; exit 2; }
done
major=$(sed -n 's/^#define CF_VERSION_MAJOR \([0-9]*\)$/\1/p' include/cuckoofilter.h)
lib=$build/libcuckoofilter.so.$major
[ -f "$lib" ] || { echo "abi: $lib not found (build first; its SONAME must follow CF_VERSION_MAJOR)" >&2; exit 2; }

soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libcuckoofilter.so.$major" ] ||
  { echo "abi: $lib has SONAME '$soname', not libcuckoofilter.so.$major" >&2; exit 1; }
leaked=$(nm -D --defined-only "$lib" | awk '{ print $NF }' | grep -v '^cf_' || true)
[ -z "$leaked" ] || { echo "abi: $lib exports symbols outside cf_:" >&2; echo "$leaked" >&2; exit 1; }

# The baseline is the whole corpus; the comparison names include/ as the
# public headers, so changes to types only the library sees (struct
# cf_filter, say) are filtered out, and every change to a public one is not.
# (Dropping private types from the baseline instead also hides a member
# appended to a public struct, which breaks callers that allocate it.)
dump() { abidw --no-corpus-path --no-comp-dir-path "$lib"; }
if $update; then
  mkdir -p abi
  dump >"$baseline"
  echo "abi: wrote $baseline ($(grep -c '<elf-symbol ' "$baseline") symbols)"
  exit 0
fi
[ -f "$baseline" ] || { echo "abi: no $baseline (scripts/abi.sh --update writes it)" >&2; exit 2; }
if ! report=$(abidiff --headers-dir2 include "$baseline" "$lib"); then
  echo "$report" >&2
  echo "abi: the library's interface differs from $baseline; if that is on purpose," \
       "run scripts/abi.sh --update and say so in CHANGELOG.md" >&2
  exit 1
fi
echo "abi: $soname, $(nm -D --defined-only "$lib" | wc -l) cf_ symbols, as $baseline says"
