#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# test_files_concurrent.sh -- the filter-file commands beside other processes
# and odd files: concurrent writers lose nothing (the writers' lock), --wait /
# --no-wait, a killed lock holder blocks nobody, killed writers' temporary
# files are cleaned, FIFOs and device nodes are refused at once and never
# replaced, writes through symbolic links reach the target, a file-size
# limit and a full stdout are clean errors, and a mapped file truncated in
# place is an error message, not a crash.
#
#   bash tests/test_files_concurrent.sh path/to/cuckoo scratch-dir
source "$(dirname "$0")/cli_testlib.sh"
# Temporary files of saves (FILE.<pid>.<n>.tmp) in $dir.
temps() { find "$dir" -mindepth 1 -maxdepth 1 -name '*.tmp' | wc -l; }

# ---- 8 writers x 1,000 distinct keys, each in 20 commands of 50: none lost
f=$dir/f.cf
expect 0 "$cuckoo" create "$f" --capacity 20000 --seed 5
for w in $(seq 1 8); do
  (for c in $(seq 0 19); do
     seq -f "w$w-%g" $((c * 50)) $((c * 50 + 49)) | "$cuckoo" add "$f" || exit 1
   done) &
done
for job in $(jobs -p); do wait "$job" || fail "a concurrent writer failed"; done
for w in $(seq 1 8); do seq -f "w$w-%g" 0 999; done >"$dir/all"
"$cuckoo" query -q "$f" <"$dir/all" || fail "keys lost by concurrent writers"
"$cuckoo" info "$f" | grep -q '^items *8000$' || fail "not 8000 items: $(grep items <("$cuckoo" info "$f"))"
[[ $(temps) == 0 ]] || fail "temporary files left: $(ls "$dir")"

# ---- a holder of the lock: an add waiting for keys on a FIFO
mkfifo "$dir/keys"
exec 3<>"$dir/keys"
"$cuckoo" add "$f" <"$dir/keys" 3>&- 2>"$dir/holder.err" &
holder=$!
wait_lock "$holder"
expect 2 "$cuckoo" add --no-wait "$f" x; one_line_error; err_has 'locked by another writer'
expect 2 "$cuckoo" delete "$f" w1-0 --no-wait; one_line_error
expect 2 "$cuckoo" add --wait 0.2 "$f" x; one_line_error; err_has 'gave up after --wait 0.2'
expect 2 "$cuckoo" create "$f" --capacity 10 --force --wait=0.1; one_line_error
expect 0 "$cuckoo" export "$f" k --output "$dir/stream"  # a reader too
expect 2 "$cuckoo" import "$f" "$dir/stream" --force --no-wait; one_line_error
err_has 'locked by another writer'
expect 0 "$cuckoo" query -q "$f" w1-0                   # readers take no lock
"$cuckoo" add "$f" waited 3>&- 2>"$dir/waiter.err" &   # waits as long as it takes
waiter=$!
wait_lock "$waiter" '->'
echo held >&3; exec 3>&-                                 # the holder adds "held" and ends
wait "$holder" || fail "the holder failed: $(cat "$dir/holder.err")"
wait "$waiter" || fail "the waiting add failed: $(cat "$dir/waiter.err")"
expect 0 "$cuckoo" query -q "$f" held waited

# ---- a holder killed with SIGKILL blocks nobody, and its keys are not saved
exec 3<>"$dir/keys"
"$cuckoo" add "$f" <"$dir/keys" 3>&- &
holder=$!
wait_lock "$holder"
echo never-saved >&3
kill -9 "$holder"; wait "$holder" 2>/dev/null
exec 3>&-
expect 0 "$cuckoo" add --no-wait "$f" after-kill
expect 1 "$cuckoo" query -q "$f" never-saved
expect 0 "$cuckoo" query -q "$f" after-kill w8-999

# ---- a missing file: the error, and no lock file beside the mistyped name
expect 2 "$cuckoo" add "$dir/missing.cf" x; one_line_error; err_has 'No such file'
expect 2 "$cuckoo" delete "$dir/missing.cf" x; one_line_error
[[ -e $dir/missing.cf.lock ]] && fail "a failed add created a lock file"

# ---- bad --wait values; readers do not take the option
expect 2 "$cuckoo" add "$f" --wait -1 x; one_line_error
expect 2 "$cuckoo" add "$f" --wait abc x; one_line_error
expect 2 "$cuckoo" add "$f" x --wait; one_line_error
expect 2 "$cuckoo" query "$f" --no-wait x; one_line_error

# ---- killed writers' temporary files: removed by the next writer if their
# process is gone, kept if it runs
true & dead=$!; wait "$dead"
touch "$f.$dead.0.tmp" "$f.$$.0.tmp" "$f.notatemp.tmp"
expect 0 "$cuckoo" add "$f" cleaner
[[ -e $f.$dead.0.tmp ]] && fail "a dead writer's temporary file was kept"
[[ -e $f.$$.0.tmp ]] || fail "a live process's temporary file was removed"
[[ -e $f.notatemp.tmp ]] || fail "a file that is not a save's temporary file was removed"
rm -f "$f.$$.0.tmp" "$f.notatemp.tmp"
k=$dir/k.cf
expect 0 "$cuckoo" create "$k" --capacity 400000 --seed 3
cp "$k" "$dir/k.empty"
seq 100000 250000 >"$dir/k.keys"
for i in $(seq 1 10); do
  cp "$dir/k.empty" "$k"
  "$cuckoo" add "$k" <"$dir/k.keys" 2>/dev/null &
  pid=$!
  sleep "0.0$((RANDOM % 100))"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
done
expect 0 "$cuckoo" delete "$k" </dev/null
[[ $(temps) == 0 ]] || fail "killed writers' temporary files left: $(ls "$dir")"
expect 0 "$cuckoo" info "$k"

# ---- FIFOs are refused at once (never waited on), devices never replaced
mkfifo "$dir/fifo"
for cmd in "query $dir/fifo x" "count $dir/fifo x" "info $dir/fifo" "add $dir/fifo x" \
           "delete $dir/fifo x" "create $dir/fifo --capacity 10 --force"; do
  expect 2 "$cuckoo" $cmd; one_line_error; err_has 'not a regular file'
done
expect 2 bash -c "seq 1 10 | '$cuckoo' build '$dir/fifo' --capacity 100 --force"
one_line_error; err_has 'not a regular file'
[[ -p $dir/fifo ]] || fail "the FIFO was replaced"
# A device node: as root a private twin of /dev/null (harmless to replace if
# the check failed), else /dev/null itself (its directory is not writable).
if [[ $(id -u) == 0 ]]; then dev=$dir/null; mknod "$dev" c 1 3; else dev=/dev/null; fi
expect 2 "$cuckoo" create "$dev" --capacity 10 --force; one_line_error; err_has 'not a regular file'
expect 2 bash -c "seq 1 10 | '$cuckoo' build '$dev' --capacity 100 --force"
err_has 'not a regular file'
[[ -c $dev ]] || fail "the device node was replaced"
ln -s "$dir/fifo" "$dir/to-fifo"
expect 2 "$cuckoo" add "$dir/to-fifo" x; err_has 'not a regular file'

# ---- add through a symbolic link updates the target; the link stays
mkdir "$dir/links"
expect 0 "$cuckoo" create "$dir/t.cf" --capacity 100
ln -s ../t.cf "$dir/links/l.cf"
expect 0 "$cuckoo" add "$dir/links/l.cf" via-link
[[ -L $dir/links/l.cf ]] || fail "add replaced the link with a file"
expect 0 "$cuckoo" query -q "$dir/t.cf" via-link
expect 0 "$cuckoo" delete "$dir/links/l.cf" via-link
expect 1 "$cuckoo" query -q "$dir/t.cf" via-link
[[ $(ls "$dir/links") == l.cf ]] || fail "files beside the link: $(ls "$dir/links")"
ln -s nowhere.cf "$dir/dangling.cf"
expect 2 "$cuckoo" create "$dir/dangling.cf" --capacity 10; one_line_error
[[ -e $dir/nowhere.cf ]] && fail "create wrote through a dangling link"

# ---- a file-size limit: a clean error, the old file, no temporary file
expect 0 "$cuckoo" create "$dir/big.cf" --capacity 100000
cp "$dir/big.cf" "$dir/big.before"
expect 2 bash -c "ulimit -f 50; '$cuckoo' add '$dir/big.cf' x"
one_line_error; err_has 'File too large'
cmp -s "$dir/big.cf" "$dir/big.before" || fail "a failed add changed the file"
[[ $(temps) == 0 ]] || fail "a failed add left a temporary file"

# ---- answers that cannot be written are errors
expect 2 bash -c "'$cuckoo' count '$f' w1-1 >/dev/full"; one_line_error; err_has 'standard output'
expect 2 bash -c "'$cuckoo' query '$f' w1-1 >/dev/full"; one_line_error
expect 2 bash -c "'$cuckoo' info '$f' >/dev/full"; one_line_error
expect 2 bash -c "'$cuckoo' export '$f' k >/dev/full"; one_line_error; err_has 'standard output'
expect 2 bash -c "'$cuckoo' --help >/dev/full"; one_line_error

# ---- a mapped file truncated in place by another program: an error, not SIGBUS
"$cuckoo" query -q "$dir/big.cf" <"$dir/keys" 2>"$dir/err" &
reader=$!
exec 3>"$dir/keys"
for _ in $(seq 1 2000); do grep -q big.cf "/proc/$reader/maps" 2>/dev/null && break; sleep 0.01; done
truncate -s 0 "$dir/big.cf"
seq 1 1000 >&3; exec 3>&-
wait "$reader"
rc=$?
[[ $rc == 2 ]] || fail "query of a truncated mapping: exit $rc (want 2)"
one_line_error; err_has 'truncated in place'

finish
