#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# test_files_edges.sh -- the edges where a writer of a filter file could lose
# acknowledged writes, each pinned by a run that lost them before (issue 24):
# a symbolic link retargeted while `add` holds the lock, `merge` with OUT
# spelled differently from the same input, a lock file removed while held;
# and the smaller errors (a read-only directory, a FIFO as the lock file, a
# stray FILE.lock after a failed create, saving through a hard link).
#
#   bash tests/test_files_edges.sh path/to/cuckoo scratch-dir
source "$(dirname "$0")/cli_testlib.sh"
# Starts `cuckoo add FILE` reading its keys from a FIFO on descriptor 3 and
# waits until it holds the lock; its pid goes to $holder.
start_holder() {
  rm -f "$dir/keys"; mkfifo "$dir/keys"
  exec 3<>"$dir/keys"
  "$cuckoo" add "$1" <"$dir/keys" 3>&- 2>"$dir/holder.err" &
  holder=$!
  wait_lock "$holder"
}
# Gives the holder its last key and its exit code to $holder_rc.
end_holder() {
  echo "$1" >&3; exec 3>&-
  wait "$holder"; holder_rc=$?
}

# ---- a link retargeted while add holds the lock: the add finishes on the
# file it locked (v1); v2, whose lock it never took, is not overwritten
mkdir "$dir/ln"
expect 0 "$cuckoo" create "$dir/ln/v1.cf" --capacity 1000 --seed 1
expect 0 "$cuckoo" create "$dir/ln/v2.cf" --capacity 1000 --seed 1
expect 0 "$cuckoo" add "$dir/ln/v2.cf" only-in-v2
ln -s v1.cf "$dir/ln/cur.cf"
start_holder "$dir/ln/cur.cf"
ln -sfn v2.cf "$dir/ln/cur.cf"
expect 0 "$cuckoo" add "$dir/ln/cur.cf" added-to-v2 # v2's lock is free
end_holder added-to-v1
[[ $holder_rc == 0 ]] || fail "the add through the link failed: $(cat "$dir/holder.err")"
expect 0 "$cuckoo" query -q "$dir/ln/v2.cf" only-in-v2 added-to-v2
expect 1 "$cuckoo" query -q "$dir/ln/v2.cf" added-to-v1
expect 0 "$cuckoo" query -q "$dir/ln/v1.cf" added-to-v1
[[ -L $dir/ln/cur.cf ]] || fail "the link was replaced by a file"

# ---- merge: OUT is an input however it is spelled, so it is locked from
# before the load; an add that holds the lock meanwhile is not undone
cd "$dir" || exit 1
expect 0 "$cuckoo" create a.cf --capacity 1000 --seed 2
expect 0 "$cuckoo" create b.cf --capacity 1000 --seed 2
expect 0 "$cuckoo" add b.cf from-b
start_holder a.cf
"$cuckoo" merge ./a.cf a.cf b.cf --force 3>&- 2>"$dir/merge.err" &
merger=$!
wait_lock "$merger" '->'
end_holder added-during-merge
[[ $holder_rc == 0 ]] || fail "the add failed: $(cat "$dir/holder.err")"
wait "$merger" || fail "merge ./a.cf a.cf b.cf failed: $(cat "$dir/merge.err")"
expect 0 "$cuckoo" query -q a.cf added-during-merge from-b
# Spelled apart, OUT is still an input: no --force asked, and a link too.
expect 0 "$cuckoo" merge "$dir/./a.cf" a.cf b.cf
ln -s a.cf a-link.cf
expect 0 "$cuckoo" merge a-link.cf a.cf b.cf
[[ -L a-link.cf ]] || fail "merge replaced the link with a file"
expect 0 "$cuckoo" merge c.cf ./b.cf
expect 2 "$cuckoo" merge c.cf ./b.cf; one_line_error; err_has 'use --force' # not an input
expect 0 "$cuckoo" merge c.cf ./b.cf b.cf --force
cd - >/dev/null || exit 1

# ---- the lock file removed while an add holds it: a second writer gets in
# on a new one; the first must not overwrite its save
f=$dir/f.cf
expect 0 "$cuckoo" create "$f" --capacity 1000 --seed 3
start_holder "$f"
rm "$f.lock"
expect 0 "$cuckoo" add --no-wait "$f" second-writer
end_holder first-writer
[[ $holder_rc == 2 ]] || fail "the holder whose lock was removed exited $holder_rc (want 2)"
grep -q 'lock file was removed or replaced' "$dir/holder.err" ||
  fail "the holder's error: $(cat "$dir/holder.err")"
expect 0 "$cuckoo" query -q "$f" second-writer
expect 1 "$cuckoo" query -q "$f" first-writer
expect 0 "$cuckoo" add "$f" first-writer # a retry succeeds

# ---- a FIFO where the lock file goes: the lock file is named, not the filter
expect 0 "$cuckoo" create "$dir/g.cf" --capacity 10
rm -f "$dir/g.cf.lock"; mkfifo "$dir/g.cf.lock"
expect 2 "$cuckoo" add --no-wait "$dir/g.cf" x; one_line_error; err_has 'its lock file'
grep -q 'g.cf is a FIFO' "$dir/err" && fail "the filter file was called a FIFO: $(cat "$dir/err")"
rm -f "$dir/g.cf.lock"

# ---- a create that fails (a file-size limit here; no space is the same)
# leaves neither the file nor a stray FILE.lock
expect 2 bash -c "ulimit -f 1; '$cuckoo' create '$dir/big.cf' --capacity 100000"
one_line_error; err_has 'File too large'
[[ -e $dir/big.cf || -e $dir/big.cf.lock ]] && fail "a failed create left: $(ls "$dir")"
expect 2 bash -c "ulimit -f 1; seq 1 1000 | '$cuckoo' build '$dir/big.cf' --capacity 100000"
[[ -e $dir/big.cf.lock ]] && fail "a failed build left a stray lock file"
expect 0 "$cuckoo" create "$dir/big.cf" --capacity 10 # an existing file's lock file stays
[[ -e $dir/big.cf.lock ]] || fail "the lock file of a written file was removed"

# ---- a read-only directory: the error is the permission, not "No such file"
mkdir "$dir/ro"
expect 0 "$cuckoo" create "$dir/ro/r.cf" --capacity 10
rm -f "$dir/ro/r.cf.lock"
chmod 0555 "$dir/ro"; chmod 0644 "$dir/ro/r.cf"
if [[ $(id -u) == 0 ]]; then
  # Root ignores permission bits: an unprivileged user runs the add.
  chmod 0755 "$dir"
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
else
  as_user=()
fi
expect 2 "${as_user[@]}" "$cuckoo" add "$dir/ro/r.cf" x; one_line_error
err_has 'Permission denied'
grep -q 'No such file' "$dir/err" && fail "a read-only directory said 'No such file'"
chmod 0755 "$dir/ro"

# ---- hard links: a save replaces the name it was given; the other name
# keeps the old filter (documented in cuckoo.1 and the header)
expect 0 "$cuckoo" create "$dir/h1.cf" --capacity 10
ln "$dir/h1.cf" "$dir/h2.cf"
expect 0 "$cuckoo" add "$dir/h1.cf" via-h1
expect 0 "$cuckoo" query -q "$dir/h1.cf" via-h1
expect 1 "$cuckoo" query -q "$dir/h2.cf" via-h1

# ---- big streams in batches (a reader thread splits and hashes 1 MiB
# blocks): keys across block boundaries, a key longer than a block, -0
# records, and the failing key's line named right
seq 1 300000 >"$dir/seq"
expect 0 "$cuckoo" build "$dir/s.cf" --capacity 300000 --keys "$dir/seq"
"$cuckoo" info "$dir/s.cf" | grep -q '^items *300000$' || fail "not 300000 items from 300000 lines"
expect 0 "$cuckoo" query -q "$dir/s.cf" --keys "$dir/seq"
{ printf 'x%.0s' $(seq 1 10); head -c 3000000 /dev/zero | tr '\0' 'a'; printf '\r\n\n\nlast'; } >"$dir/long"
expect 0 "$cuckoo" build "$dir/l.cf" --capacity 100 --keys "$dir/long"
"$cuckoo" info "$dir/l.cf" | grep -q '^items *2$' || fail "a 3 MB key and 'last': not 2 items"
expect 0 "$cuckoo" query -q "$dir/l.cf" --keys "$dir/long"
expect 0 "$cuckoo" query -q "$dir/l.cf" last
tr '\n' '\0' <"$dir/seq" >"$dir/seq0"
expect 0 "$cuckoo" build "$dir/z.cf" --capacity 300000 -0 --keys "$dir/seq0"
expect 0 "$cuckoo" query -q "$dir/z.cf" -0 --keys "$dir/seq0"
expect 0 "$cuckoo" query -q "$dir/z.cf" 299999
expect 2 "$cuckoo" build "$dir/f.cf" --capacity 20000 --force --keys "$dir/seq"
one_line_error; err_has 'of 300000 keys fit'
at=$(sed -n "s/.*filled at line \([0-9]*\) (key '\([0-9]*\)').*/\1 \2/p" "$dir/err")
[[ -n $at && ${at% *} == "${at#* }" ]] || fail "the failing line and its key disagree: $(cat "$dir/err")"
expect 0 "$cuckoo" create "$dir/a2.cf" --capacity 20000
expect 2 "$cuckoo" add "$dir/a2.cf" --keys "$dir/seq"; one_line_error
at=$(sed -n "s/.*line \([0-9]*\) (key '\([0-9]*\)').*/\1 \2/p" "$dir/err")
[[ -n $at && ${at% *} == "${at#* }" ]] || fail "add: the failing line and its key disagree: $(cat "$dir/err")"

finish
