#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# test_files.sh -- the filter-file commands of `cuckoo`: exit codes, keys from
# arguments and stdin, atomic rewrites (failed and killed commands leave the
# old file), and a cross-check: the CLI rebuilds a golden file byte for byte
# and answers every query like the library's file.
#
#   bash tests/test_files.sh path/to/cuckoo scratch-dir     (from tests/)
source "$(dirname "$0")/cli_testlib.sh"

f=$dir/f.cf
# ---- create, add, query, count, delete, exit codes
expect 0 "$cuckoo" create "$f" --capacity 1000 --seed 7
expect 2 "$cuckoo" create "$f" --capacity 1000; one_line_error      # exists
expect 0 "$cuckoo" create "$f" --capacity 1000 --seed 7 --force
expect 2 "$cuckoo" create "$dir/g.cf"; one_line_error                # no capacity
expect 2 "$cuckoo" create "$dir/g.cf" --capacity 10 --fpp 0.1 --fingerprint-bits 8; one_line_error
expect 2 "$cuckoo" create "$dir/g.cf" --capacity 10 --bucket-size 3; one_line_error
expect 2 "$cuckoo" create "$dir/g.cf" --capacity x; one_line_error
expect 2 "$cuckoo" create "$dir/g.cf" --capacity 10 --bogus; one_line_error
expect 2 "$cuckoo" create "$dir/g.cf" --capacity; one_line_error
grep -q 'needs a value' "$dir/err" || fail "missing value message: $(cat "$dir/err")"
[[ -e $dir/g.cf ]] && fail "a failed create wrote a file"
expect 0 "$cuckoo" add "$f" apple banana
expect 0 "$cuckoo" query "$f" apple banana
[[ $(cat "$dir/out") == $'apple\tyes\nbanana\tyes' ]] || fail "query output: $(cat "$dir/out")"
expect 1 "$cuckoo" query "$f" apple cherry
grep -q $'^cherry\tno$' "$dir/out" || fail "cherry should be 'no'"
expect 1 "$cuckoo" query -q "$f" cherry
[[ -s $dir/out ]] && fail "-q printed something"
expect 0 "$cuckoo" count "$f" apple
[[ $(cat "$dir/out") == 1 ]] || fail "count apple: $(cat "$dir/out")"
expect 0 "$cuckoo" add "$f" apple
expect 0 "$cuckoo" count "$f" apple
[[ $(cat "$dir/out") == 2 ]] || fail "count after a second add: $(cat "$dir/out")"
expect 0 "$cuckoo" add --unique "$f" apple
expect 0 "$cuckoo" count "$f" apple
[[ $(cat "$dir/out") == 2 ]] || fail "--unique added a copy"
expect 0 "$cuckoo" delete "$f" apple apple
expect 1 "$cuckoo" count "$f" apple
expect 1 "$cuckoo" delete "$f" banana never-added; one_line_error
expect 1 "$cuckoo" query -q "$f" banana                              # it was deleted
expect 2 "$cuckoo" query "$dir/missing.cf" x; one_line_error
grep -q "No such file" "$dir/err" || fail "missing file message: $(cat "$dir/err")"

# ---- keys from stdin, one per line (CR LF too); keys with spaces
printf 'one\ntwo words\r\nthree\n' | "$cuckoo" add "$f" || fail "add from stdin"
printf 'one\ntwo words\nthree\n' | "$cuckoo" query -q "$f" || fail "stdin keys not found"
expect 0 "$cuckoo" query -q "$f" "two words"

# ---- info
expect 0 "$cuckoo" info "$f"
grep -q '^checksum *ok$' "$dir/out" || fail "info: checksum line"
grep -q '^items *3$' "$dir/out" || fail "info: items: $(grep items "$dir/out")"
expect 0 "$cuckoo" info "$f" --json
grep -q '"checksum_ok": true' "$dir/out" || fail "info --json: $(cat "$dir/out")"
grep -q '"format_version": 1' "$dir/out" || fail "info --json version"
cp "$f" "$dir/damaged.cf"
printf '\xff' | dd of="$dir/damaged.cf" bs=1 seek=70 conv=notrunc status=none
expect 2 "$cuckoo" info "$dir/damaged.cf"
grep -q 'checksum mismatch' "$dir/out" || fail "info of a damaged file: $(cat "$dir/out")"
# The description comes before the error when both go to one file.
"$cuckoo" info "$dir/damaged.cf" >"$dir/both" 2>&1
[[ $(tail -n 1 "$dir/both") == "cuckoo: $dir/damaged.cf: checksum mismatch" ]] ||
  fail "info's error is not last: $(cat "$dir/both")"
# info maps the file once and asks that handle everything, its length too
# (scripts/deps.sh installs strace; a kernel that forbids tracing says so).
info_opens_once() {
  if ! strace -f -e trace=%file -o "$dir/trace" true 2>/dev/null; then
    echo "test_files: strace cannot trace here; info's single open of $1 not checked" >&2
    return
  fi
  strace -f -e trace=%file -o "$dir/trace" "$cuckoo" info "$1" >/dev/null
  local opens
  opens=$(grep -cE "open(at)?\(.*\"$1\"" "$dir/trace")
  [[ $opens == 1 ]] || fail "info opened $1 $opens times"
}
info_opens_once "$f"
expect 2 "$cuckoo" add "$dir/damaged.cf" x; one_line_error
expect 2 "$cuckoo" info tests-do-not-exist.cf; one_line_error

# ---- a full filter: add and build are all or nothing
small=$dir/small.cf
expect 0 "$cuckoo" create "$small" --capacity 50 --seed 1
cp "$small" "$dir/small.before"
seq 1 1000 | "$cuckoo" add "$small" 2>"$dir/err"
[[ $? == 2 ]] || fail "add past full should exit 2"
one_line_error
cmp -s "$small" "$dir/small.before" || fail "a failed add changed the file"
seq 1 1000 | "$cuckoo" build "$dir/b.cf" --capacity 100 2>"$dir/err"
[[ $? == 2 ]] || fail "build past full should exit 2"
one_line_error
grep -q 'of 1000 keys fit; nothing written' "$dir/err" || fail "build message: $(cat "$dir/err")"
[[ -e $dir/b.cf ]] && fail "a failed build wrote a file"
expect 0 bash -c "seq 1 1000 | '$cuckoo' build '$dir/b.cf' --capacity 100 --grow"
expect 0 bash -c "seq 1 1000 | '$cuckoo' query -q '$dir/b.cf'"
expect 0 bash -c "seq 1 1000 | '$cuckoo' build '$dir/b.cf' --capacity 1000 --force"
# Growing adds tables for want of room, not for one key's copies.
expect 2 bash -c "yes same | head -100 | '$cuckoo' build '$dir/d.cf' --capacity 1000 --grow"
one_line_error
# Growth: create --grow files grow in place; add --grow makes a plain file grow;
# info lists the tables.
expect 0 "$cuckoo" create "$dir/g.cf" --capacity 50 --fpp 0.01 --grow
expect 0 bash -c "seq 1 2000 | '$cuckoo' add '$dir/g.cf'"
expect 0 bash -c "seq 1 2000 | '$cuckoo' query -q '$dir/g.cf'"
"$cuckoo" info "$dir/g.cf" >"$dir/out" || fail "info on a grown file"
grep -q '^format version    2$' "$dir/out" || fail "grown info: $(cat "$dir/out")"
grep -q '^  table 4 ' "$dir/out" || fail "grown info lists no table 4: $(cat "$dir/out")"
"$cuckoo" info --json "$dir/g.cf" | grep -q '"tables": \[{' || fail "grown info --json has no tables"
for x in "$f" "$dir/g.cf"; do
  "$cuckoo" info --json "$x" | grep -q "\"file_bytes\": $(stat -c %s "$x")," ||
    fail "info's file_bytes is not the length of $x"
done
info_opens_once "$dir/g.cf"
expect 0 "$cuckoo" create "$dir/p.cf" --capacity 50
expect 2 bash -c "seq 1 2000 | '$cuckoo' add '$dir/p.cf' 2>/dev/null"
expect 0 bash -c "seq 1 2000 | '$cuckoo' add --grow '$dir/p.cf'"
expect 0 bash -c "seq 1 2000 | '$cuckoo' query -q '$dir/p.cf'"
# In-place growth (--grow=inplace): one table, format version 4; a plain file
# cannot be made to grow in place; an unknown mode is refused.
expect 0 "$cuckoo" create "$dir/ip.cf" --capacity 50 --fpp 0.01 --grow=inplace
expect 0 bash -c "seq 1 5000 | '$cuckoo' add '$dir/ip.cf'"
expect 0 bash -c "seq 1 5000 | '$cuckoo' query -q '$dir/ip.cf'"
expect 0 "$cuckoo" delete "$dir/ip.cf" 17
expect 0 bash -c "seq 18 5000 | '$cuckoo' query -q '$dir/ip.cf'"
"$cuckoo" info "$dir/ip.cf" >"$dir/out" || fail "info on an in-place file"
grep -q '^format version    4$' "$dir/out" || fail "in-place info: $(cat "$dir/out")"
grep -q '^growth            in place: [0-9]* doublings' "$dir/out" || fail "in-place info: $(cat "$dir/out")"
"$cuckoo" info --json "$dir/ip.cf" | grep -q '"growth_mode": "inplace"' || fail "in-place info --json"
expect 0 bash -c "seq 1 3000 | '$cuckoo' build '$dir/ipb.cf' --capacity 10 --grow=inplace"
expect 0 bash -c "seq 1 3000 | '$cuckoo' query -q '$dir/ipb.cf'"
expect 2 "$cuckoo" create "$dir/ipx.cf" --capacity 50 --grow=sideways; one_line_error
expect 0 "$cuckoo" create "$dir/p2.cf" --capacity 50
expect 2 bash -c "seq 1 2000 | '$cuckoo' add --grow=inplace '$dir/p2.cf'"; err_has "cannot grow in place"
expect 0 bash -c "yes same | head -100 | '$cuckoo' build '$dir/d.cf' --capacity 1000 --unique"
"$cuckoo" count "$dir/d.cf" same >"$dir/out"
[[ $(cat "$dir/out") == 1 ]] || fail "--unique build stored $(cat "$dir/out") copies"

# ---- cross-check with the library's golden file (tests/test_golden.c's recipe:
# f=12, b=4, 100 buckets, seed 2014, keys key-0..key-379)
golden=data/good/article_f12_b4_nb100.cf
keys=$dir/keys
for i in $(seq 0 379); do echo "key-$i"; done >"$keys"
expect 0 "$cuckoo" create "$dir/x.cf" --buckets 100 --fingerprint-bits 12 --bucket-size 4 --seed 2014
"$cuckoo" add "$dir/x.cf" <"$keys" || fail "cross-check add"
cmp -s "$dir/x.cf" "$golden" || fail "create + add did not rebuild $golden byte for byte"
"$cuckoo" build "$dir/y.cf" --buckets 100 --fingerprint-bits 12 --bucket-size 4 --seed 2014 \
  <"$keys" || fail "cross-check build"
cmp -s "$dir/y.cf" "$golden" || fail "build did not rebuild $golden byte for byte"
{ cat "$keys"; for i in $(seq 0 3000); do echo "absent-$i"; done; } >"$dir/probe"
"$cuckoo" query "$golden" <"$dir/probe" >"$dir/q1"
"$cuckoo" query "$dir/y.cf" <"$dir/probe" >"$dir/q2"
cmp -s "$dir/q1" "$dir/q2" || fail "CLI-built and golden files answer differently"
[[ $(grep -c $'\tyes$' "$dir/q1") -ge 380 ]] || fail "keys missing from the golden file"

# the same for a semi-sorted golden file (f=9, 50 buckets, seed 21, key-0..key-179)
for i in $(seq 0 179); do echo "key-$i"; done >"$dir/skeys"
"$cuckoo" build "$dir/s.cf" --buckets 50 --fingerprint-bits 9 --bucket-size 4 --seed 21 \
  --semi-sort <"$dir/skeys" || fail "semi-sorted build"
cmp -s "$dir/s.cf" data/good/semisort_f9_b4_nb50.cf || fail "semi-sorted build differs from golden"
"$cuckoo" info --json "$dir/s.cf" | grep -q '"semi_sorted": true' || fail "info: semi_sorted"

# ---- kill `cuckoo add` at random moments: the file is always the old or the new one
k=$dir/k.cf
expect 0 "$cuckoo" create "$k" --capacity 400000 --seed 3
seq 1 1000 | "$cuckoo" add "$k" || fail "kill setup"
cp "$k" "$dir/k.old"
seq 100000 250000 >"$dir/k.keys"
cp "$k" "$dir/k.work"
"$cuckoo" add "$dir/k.work" <"$dir/k.keys" || fail "kill setup: full add"
mv "$dir/k.work" "$dir/k.new"
olds=0 news=0
for i in $(seq 1 25); do
  cp "$dir/k.old" "$k"
  "$cuckoo" add "$k" <"$dir/k.keys" &
  pid=$!
  sleep "0.0$((RANDOM % 100))"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  "$cuckoo" info "$k" >/dev/null 2>&1 || fail "killed add left an unloadable file (round $i)"
  if cmp -s "$k" "$dir/k.old"; then olds=$((olds + 1))
  elif cmp -s "$k" "$dir/k.new"; then news=$((news + 1))
  else fail "killed add left a file that is neither old nor new (round $i)"
  fi
  rm -f "$dir"/k.cf.*.tmp # what a killed save leaves behind
done
echo "kill test: 25 rounds, $olds left the old file, $news the new one"

finish
