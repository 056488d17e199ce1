#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# test_files_sets.sh -- the commands that write several files, or a stream to
# a file, complete or leave every file as it was (issue 32): `import
# --shards` into a directory that holds another import, `export --shards`
# into a directory that holds another export, a failure half way through
# either, and `export --output`.  No Redis server is needed: `export
# --shards` writes the very streams (CF.LOADCHUNK and HSET commands) that a
# SCANDUMP capture holds, so its output, concatenated, is import's input.
#
#   bash tests/test_files_sets.sh path/to/cuckoo scratch-dir
source "$(dirname "$0")/cli_testlib.sh"
cd "$dir" || exit 1

# Two filters, A (4 shards) and B (3 shards), and their captures.
seq 1 4000 | sed 's/^/a:/' >keys-a
seq 1 2500 | sed 's/^/b:/' >keys-b
expect 0 "$cuckoo" build a.cf --capacity 4000 --seed 7 --keys keys-a
expect 0 "$cuckoo" build b.cf --capacity 2500 --seed 8 --keys keys-b
expect 0 "$cuckoo" export a.cf A --shards 4 --output-dir ea --keys keys-a
expect 0 "$cuckoo" export b.cf B --shards 3 --output-dir eb --keys keys-b
cat ea/shard-*.resp ea/meta.resp >cap-a
cat eb/shard-*.resp eb/meta.resp >cap-b

# The state of a directory: every file's name and checksum.
state() { (cd "$1" && find . -type f ! -name '*.lock' | sort | xargs md5sum); }
# No temporary or set-aside file is left in $1.
no_debris() {
  local left
  left=$(find "$1" -name '*.tmp' -o -name '*.old')
  [[ -z $left ]] || fail "$2: left $left"
}

# ---- import --shards: A into D, then B refused without --force: D keeps A
expect 0 "$cuckoo" import --shards D cap-a
state D >d-a
expect 2 "$cuckoo" import --shards D cap-b
one_line_error
err_has "exists (use --force to replace it)"
[[ $(state D) == "$(cat d-a)" ]] || fail "a refused import --shards changed D"
grep -q 'cuckoofilter.sharded' D/meta.resp && grep -qa 'A' D/meta.resp ||
  fail "D's metadata is not A's after the refused import"
no_debris D "refused import"
# Every item of A is still answered by its shard files (routing aside: each
# key is in one of them, and no shard lost its items).
total=0
for k in 0 1 2 3; do
  expect 0 "$cuckoo" info --json "D/shard-$k.cf"
  total=$((total + $(sed -n 's/.*"items": *\([0-9]*\).*/\1/p' "$dir/out")))
done
[[ $total == 4000 ]] || fail "D's shards hold $total items, want A's 4000"

# ---- a failure half way (B's third shard cut short) leaves D as it was,
# also with --force
head -c "$(($(stat -c %s eb/shard-0.resp) + $(stat -c %s eb/shard-1.resp) + 100))" cap-b >cut-b
cat eb/meta.resp >>cut-b
expect 2 "$cuckoo" import --shards D cut-b --force
[[ $(state D) == "$(cat d-a)" ]] || fail "a failed import --shards --force changed D"
no_debris D "failed import"

# ---- with --force, D becomes B whole: three shards, A's fourth removed
expect 0 "$cuckoo" import --shards D cap-b --force
[[ -f D/shard-2.cf && ! -e D/shard-3.cf ]] || fail "D is not B's three shards: $(ls D)"
cmp -s D/meta.resp eb/meta.resp || fail "D/meta.resp is not B's metadata"
for k in 0 1 2; do
  cmp -s "D/shard-$k.cf" "eb/shard-$k.cf" || fail "D/shard-$k.cf is not B's shard $k"
done
no_debris D "forced import"

# ---- a failed import into a new directory leaves no directory behind
expect 2 "$cuckoo" import --shards NEW cut-b
[[ ! -e NEW ]] || fail "a failed import --shards left NEW: $(ls -a NEW)"

# ---- export --shards into a directory holding another export: refused
# without --force (nothing changed), replaced whole with it
state eb >eb-before
expect 2 "$cuckoo" export a.cf A --shards 4 --output-dir eb --keys keys-a
err_has "exists (use --force to replace it)"
[[ $(state eb) == "$(cat eb-before)" ]] || fail "a refused export --shards changed eb"
# A wrong key list stops the export before anything is written.
head -n 100 keys-a >few
expect 2 "$cuckoo" export a.cf A --shards 4 --output-dir eb --keys few --force
[[ $(state eb) == "$(cat eb-before)" ]] || fail "a failed export --shards changed eb"
expect 0 "$cuckoo" export a.cf A --shards 2 --output-dir eb --keys keys-a --force
[[ ! -e eb/shard-2.cf && ! -e eb/shard-2.resp ]] || fail "B's third shard outlived the export"
[[ $(grep -c . eb/shards.tsv) == 3 ]] || fail "shards.tsv: $(cat eb/shards.tsv)"
no_debris eb "forced export"

# ---- export --output: refused over a file without --force; a stream to a
# FIFO or /dev/null is written as it comes
expect 0 "$cuckoo" export a.cf k --output one.resp
cp one.resp one.before
expect 2 "$cuckoo" export b.cf k --output one.resp
err_has "exists (use --force to replace it)"
cmp -s one.resp one.before || fail "a refused export --output changed the file"
expect 0 "$cuckoo" export b.cf k --output one.resp --force
cmp -s one.resp one.before && fail "export --output --force did not replace the file"
expect 0 "$cuckoo" export a.cf k --output /dev/null
no_debris . "export --output"

finish
