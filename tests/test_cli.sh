#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# test_cli.sh -- the `cuckoo` command for daily use: help that agrees with the
# man page and docs/CLI.md, keys from files and NUL-separated streams, query
# outputs, numbers as people write them, messages that say why, and merging
# filters built apart.
#
#   bash tests/test_cli.sh path/to/cuckoo scratch-dir     (from tests/)
source "$(dirname "$0")/cli_testlib.sh"
top=..

# ---- help, man page, docs/CLI.md and completion agree on every command's options
commands=$("$cuckoo" --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p')
[[ $(wc -w <<<"$commands") -ge 9 ]] || fail "cuckoo --help lists too few commands: $commands"
# The options of a help text: the lines "  -x, --long ARG  text".
help_opts() { sed -n 's/^  \(-[^ ,]*\)\(, \(-[^ ]*\)\)\{0,1\}.*/\1 \3/p' | tr ' ' '\n' | sed '/^$/d' | sort -u; }
# The options of a man page section: what follows each .TP.
man_opts() {
  awk -v cmd="$1" '
    /^\.SS / { on = index($0, "\"cuckoo " cmd " ") == 5 || $0 == ".SS \"cuckoo " cmd "\""; next }
    /^\.SH / { on = 0 }
    on && tp { print; tp = 0; next }
    on && /^\.TP/ { tp = 1 }' "$top/docs/cuckoo.1" |
    sed 's/\\-/-/g' | grep -oE '(^|[ "])--?[a-z0-9][a-z0-9-]*' | tr -d ' "' | sort -u
}
readme_opts() {
  grep -F "| \`cuckoo $1\` |" "$top/docs/CLI.md" | grep -oE '`--?[a-z0-9][a-z0-9-]*`' | tr -d '`' | sort -u
}
for c in $commands; do
  "$cuckoo" "$c" --help >"$dir/help" 2>&1 || fail "$c --help failed"
  "$cuckoo" help "$c" >"$dir/help2" 2>&1 || fail "help $c failed"
  cmp -s "$dir/help" "$dir/help2" || fail "'cuckoo help $c' differs from '$c --help'"
  help_opts <"$dir/help" >"$dir/h.opts"
  [[ -s $dir/h.opts ]] || fail "$c --help lists no options"
  man_opts "$c" >"$dir/m.opts"
  readme_opts "$c" >"$dir/r.opts"
  diff "$dir/h.opts" "$dir/m.opts" >/dev/null || fail "$c: --help and man page differ: $(diff "$dir/h.opts" "$dir/m.opts" | tr '\n' ' ')"
  diff "$dir/h.opts" "$dir/r.opts" >/dev/null || fail "$c: --help and docs/CLI.md differ: $(diff "$dir/h.opts" "$dir/r.opts" | tr '\n' ' ')"
  # Every option listed is one the command accepts.  (The trailing bogus
  # option makes every run stop at parsing; "1" stands for a value.)
  while read -r opt; do
    "$cuckoo" "$c" "$opt" 1 --zz-bogus >/dev/null 2>"$dir/err" </dev/null
    grep -qF "unknown option '$opt'" "$dir/err" && fail "$c --help lists $opt, which it rejects"
  done <"$dir/h.opts"
  cp "$dir/h.opts" "$dir/h.$c"
done
# And the reverse: an option some command's help lists is refused, as unknown,
# by every command whose help does not list it (each command's options are a
# table of the parser: one entry too many would be accepted undocumented).
cat "$dir"/h.* | sort -u >"$dir/all.opts"
for c in $commands; do
  while read -r opt; do
    grep -qxF -- "$opt" "$dir/h.$c" && continue
    "$cuckoo" "$c" "$opt" 1 --zz-bogus >/dev/null 2>"$dir/err" </dev/null
    grep -qF "unknown option '$opt'" "$dir/err" || fail "$c accepts $opt, which its --help does not list: $(head -1 "$dir/err")"
  done <"$dir/all.opts"
done
rm -f "$dir"/h.*
# The parser rejects what no help lists.
expect 2 "$cuckoo" query "$dir/none.cf" --bogus; err_has "unknown option '--bogus'"
expect 2 "$cuckoo" help nosuch
if command -v man >/dev/null; then
  MANWIDTH=80 man --warnings -l "$top/docs/cuckoo.1" >"$dir/man.txt" 2>"$dir/err" || fail "man page does not render"
  [[ -s $dir/err ]] && fail "man page warnings: $(cat "$dir/err")"
  grep -q "cuckoo merge OUT IN" "$dir/man.txt" || fail "man page lacks merge"
fi
if [[ -r /usr/share/bash-completion/bash_completion ]]; then
  got=$(PATH=$(dirname "$cuckoo"):$PATH bash -c '
    source /usr/share/bash-completion/bash_completion; source '"$top"'/tools/cuckoo.bash
    COMP_WORDS=(cuckoo query --m); COMP_CWORD=2; COMP_LINE="cuckoo query --m"; COMP_POINT=${#COMP_LINE}
    _cuckoo; echo "${COMPREPLY[@]}"')
  [[ $got == --missing ]] || fail "completion of 'cuckoo query --m': '$got'"
fi

# ---- keys: --keys FILE, --keys -, -0, blank lines and \r, the empty key
f=$dir/f.cf
expect 0 "$cuckoo" create "$f" --capacity 1000
printf 'a\n\nb\r\n\n' >"$dir/k1"
expect 0 "$cuckoo" add "$f" --keys "$dir/k1"
expect 0 "$cuckoo" info "$f" --json
grep -q '"items": 2,' "$dir/out" || fail "blank lines or \\r added keys: $(cat "$dir/out")"
expect 1 "$cuckoo" count "$f" ""                       # the empty key was not added
printf 'c\0\0d\r\0' | "$cuckoo" add -0 "$f" --keys - || fail "add -0 --keys -"
expect 0 "$cuckoo" count "$f" ""                       # an empty record is the empty key
expect 0 "$cuckoo" query -q "$f" c $'d\r'              # with -0, \r is part of the key
expect 1 "$cuckoo" query -q "$f" d
printf 'e\0f' | "$cuckoo" add -0 "$f" || fail "a last record without NUL"
expect 0 "$cuckoo" query -q "$f" e f
expect 0 "$cuckoo" info "$f" --json
grep -q '"items": 7,' "$dir/out" || fail "items after -0 adds: $(cat "$dir/out")"
mkdir -p "$dir/adir"
expect 2 "$cuckoo" add "$f" --keys "$dir/adir"; one_line_error; err_has "is a directory"
expect 2 "$cuckoo" add "$f" --keys "$dir/nothing"; one_line_error; err_has "No such file"
expect 2 "$cuckoo" add "$f" --keys "$dir/k1" x; one_line_error; err_has "not both"

# ---- count and query on streams; query outputs
printf 'a\nzz\nb\n' >"$dir/q"
expect 1 "$cuckoo" count "$f" --keys "$dir/q"
[[ $(cat "$dir/out") == $'a\t1\nzz\t0\nb\t1' ]] || fail "count from a file: $(cat "$dir/out")"
"$cuckoo" count "$f" <"$dir/q" >"$dir/out2"; [[ $? == 1 ]] || fail "count from stdin: exit"
cmp -s "$dir/out" "$dir/out2" || fail "count from stdin differs from --keys"
expect 1 "$cuckoo" count "$f" --json zz a
[[ $(cat "$dir/out") == $'{"key": "zz", "count": 0}\n{"key": "a", "count": 1}' ]] ||
  fail "count --json: $(cat "$dir/out")"
expect 1 "$cuckoo" query "$f" --keys "$dir/q" --summary
[[ $(cat "$dir/err") == "2 of 3 found" ]] || fail "summary: $(cat "$dir/err")"
expect 1 "$cuckoo" query "$f" --keys "$dir/q" --found
[[ $(cat "$dir/out") == $'a\nb' ]] || fail "--found: $(cat "$dir/out")"
expect 1 "$cuckoo" query "$f" --keys "$dir/q" --missing
[[ $(cat "$dir/out") == zz ]] || fail "--missing: $(cat "$dir/out")"
expect 2 "$cuckoo" query "$f" --found --missing; one_line_error
# Keys holding a tab and a newline stay unambiguous with -0 and --json.
expect 0 "$cuckoo" add "$f" $'tab\there' $'new\nline'
printf 'tab\there\0new\nline\0nope\0' | "$cuckoo" query -0 "$f" >"$dir/out"
cmp -s "$dir/out" <(printf 'tab\there\tyes\0new\nline\tyes\0nope\tno\0') ||
  fail "query -0 output: $(od -An -c "$dir/out")"
printf 'tab\there\0nope\0' | "$cuckoo" query -0 --json "$f" >"$dir/out"
[[ $(cat "$dir/out") == $'{"key": "tab\\u0009here", "found": true}\n{"key": "nope", "found": false}' ]] ||
  fail "query --json: $(cat "$dir/out")"

# ---- numbers as people write them
i=0
for n in 2000000 2e6 2M ' 2M ' 2000k 0.002G 2.0M; do
  expect 0 "$cuckoo" create "$dir/n.cf" --capacity "$n" --force
  "$cuckoo" info --json "$dir/n.cf" | grep -o '"num_buckets": [0-9]*' >"$dir/nb.$((++i))"
done
for j in $(seq 2 "$i"); do cmp -s "$dir/nb.1" "$dir/nb.$j" || fail "capacity spelling $j differs"; done
expect 2 "$cuckoo" create "$dir/n.cf" --capacity 2,000,000 --force; one_line_error
err_has "no digit separators"
expect 2 "$cuckoo" create "$dir/n.cf" --capacity 2.5 --force; one_line_error
# Decimal only (strtod would read 0x10 as 16), and fractions times a suffix
# are exact (4.1 * 1e6 in binary is 4099999.999...).
expect 2 "$cuckoo" create "$dir/n.cf" --capacity 0x10 --force; one_line_error
expect 0 "$cuckoo" create "$dir/n.cf" --capacity 4.1M --force
expect 2 "$cuckoo" create "$dir/n.cf" --capacity 1000 --max-kicks '20x' --force; one_line_error
# Blanks around a value are the same for every option, integer or not.
expect 0 "$cuckoo" create "$dir/n.cf" --capacity ' 1000' --fpp ' 0.01 ' --max-kicks ' 20' --force

# ---- every invalid argument says why
fpp=1e-10
need=$(awk -v p=$fpp 'BEGIN { x = log(2 * 4 / p) / log(2); n = int(x); if (n < x) n++; print n }')
expect 2 "$cuckoo" create "$dir/x.cf" --capacity 1000 --fpp $fpp; one_line_error
err_has "--fpp $fpp needs $need-bit fingerprints"; err_has "at most 32"
loosest=$(sed -n 's/.*ask for --fpp \([^ ]*\) or more.*/\1/p' "$dir/err")
expect 0 "$cuckoo" create "$dir/x.cf" --capacity 1000 --fpp "$loosest"   # the suggestion works
grep -q '"fingerprint_bits": 32' <("$cuckoo" info --json "$dir/x.cf") || fail "suggested fpp is not 32 bits"
rm -f "$dir/x.cf"
expect 2 "$cuckoo" create "$dir/x.cf" --capacity 1000 --semi-sort --bucket-size 2; one_line_error
err_has "--semi-sort needs --bucket-size 4"
expect 2 "$cuckoo" create "$dir/x.cf" --capacity 1000 --semi-sort --fingerprint-bits 20; one_line_error
err_has "5- to 16-bit fingerprints"
expect 2 "$cuckoo" create "$dir/x.cf" --capacity 1000 --semi-sort --fpp 1e-7; one_line_error
err_has "--fpp 1e-07 asks for"
for bad in "--bucket-size 3" "--max-kicks 0" "--fingerprint-bits 40" "--seed -1" "--buckets x"; do
  expect 2 "$cuckoo" create "$dir/x.cf" --capacity 1000 $bad; one_line_error
  grep -q "wants" "$dir/err" || fail "no reason for $bad: $(cat "$dir/err")"
done
# The reasons are the library's (cf_config_explain), for every target too
# strict for 32-bit fingerprints, and for options that do not combine.
for fpp in 1e-20 1e-300 5e-324; do
  expect 2 "$cuckoo" create "$dir/x.cf" --capacity 1000 --fpp $fpp; one_line_error
  err_has "cannot create the filter: --fpp "; err_has "-bit fingerprints"
  err_has "at most 32: ask for --fpp"
done
expect 2 "$cuckoo" create "$dir/x.cf" --capacity 10 --grow=inplace --semi-sort --fpp 0.01; one_line_error
err_has "--grow=inplace cannot be --semi-sort"
grep -q -- "--fpp" "$dir/err" && fail "the refusal blames --fpp: $(cat "$dir/err")"
# A count out of range says which bound, not how to write a number.
expect 2 "$cuckoo" create "$dir/x.cf" --capacity 1e30; one_line_error; err_has "the largest is"
expect 2 "$cuckoo" create "$dir/x.cf" --capacity -1; one_line_error; err_has "not negative"
[[ -e $dir/x.cf ]] && fail "a refused create wrote a file"
# A directory or a device as FILE says what it is.
expect 2 "$cuckoo" query "$dir/adir" x; one_line_error; err_has "is a directory"
expect 2 "$cuckoo" add /dev/null x; one_line_error; err_has "/dev/null is a character device"
expect 2 "$cuckoo" create /dev/null --capacity 10 --force; one_line_error; err_has "character device"
expect 2 "$cuckoo" merge "$dir/adir" "$f" --force; one_line_error; err_has "is a directory"
# An explicit width too narrow for the table warns, and indeed does not hold the capacity.
expect 0 "$cuckoo" create "$dir/w.cf" --capacity 20000 --fingerprint-bits 3
err_has "warning: --fingerprint-bits 3 is too narrow"
seq 1 20000 | "$cuckoo" add "$dir/w.cf" 2>/dev/null && fail "the narrow table held its capacity (warning unfounded)"
expect 0 "$cuckoo" create "$dir/w2.cf" --capacity 20000 --fingerprint-bits 16
[[ -s $dir/err ]] && fail "a wide enough width warned: $(cat "$dir/err")"
seq 1 20000 | "$cuckoo" add "$dir/w2.cf" || fail "the 16-bit table did not hold its capacity"

# ---- full filters: the message names the line and the key and says what to do
s=$dir/s.cf
expect 0 "$cuckoo" create "$s" --capacity 50 --bucket-size 4
{ seq 1 5; echo; seq 6 1000; } >"$dir/many"                   # a blank line 6 shifts numbering
expect 2 "$cuckoo" add "$s" --keys "$dir/many"; one_line_error
line=$(grep -o 'line [0-9]*' "$dir/err" | cut -d' ' -f2)
key=$(sed -n "${line}p" "$dir/many")
err_has "line $line (key '$key'): the filter is full"
err_has "file unchanged"
err_has "--capacity"
[[ -n $key ]] || fail "full message: $(cat "$dir/err")"
long=$(printf 'k%.0s' $(seq 1 100))
expect 0 "$cuckoo" create "$s" --capacity 1000 --force
yes "$long" | head -20 | "$cuckoo" add "$s" 2>"$dir/err"
one_line_error
# The 2b+1-th copy: stored 2b times already, not "full"; the key shortened.
copies=$((2 * 4 + 1))
err_has "line $copies (key '$(printf 'k%.0s' $(seq 1 40))...') is stored $((copies - 1)) times already"
err_has "--unique"
grep -q "filter is full" "$dir/err" && fail "2b copies reported as a full filter"

# ---- progress on a terminal (script(1) gives the command a terminal)
if command -v script >/dev/null; then
  seq 1 70000 >"$dir/big"
  expect 0 "$cuckoo" create "$dir/p.cf" --capacity 100000
  # add, build and query show keys and rate (with a file also % and ETA)
  # once the input has taken a second: a small input shows nothing.
  for c in "add $dir/p.cf" "query -q $dir/p.cf" "build $dir/p2.cf --capacity 100000 --force"; do
    "$cuckoo" create "$dir/p.cf" --capacity 100000 --force --seed 1
    script -qec "$cuckoo $c --keys $dir/big" /dev/null >"$dir/tty" </dev/null
    grep -q "keys/s" "$dir/tty" && fail "progress for a small input ($c): $(head -c 200 "$dir/tty")"
    "$cuckoo" create "$dir/p.cf" --capacity 100000 --force --seed 1
    script -qec "(seq 1 70000; sleep 1.3; seq 70001 70010) | $cuckoo $c" /dev/null >"$dir/tty" </dev/null
    grep -q "70,010 keys in .* s, .*M keys/s" "$dir/tty" ||
      fail "no progress for $c: $(head -c 300 "$dir/tty")"
  done
  "$cuckoo" add "$dir/p.cf" --keys "$dir/big"
  script -qec "$cuckoo delete $dir/p.cf --keys $dir/big" /dev/null >"$dir/tty" </dev/null
  grep -q "65536 keys" "$dir/tty" || fail "no progress for delete: $(head -c 200 "$dir/tty")"
  "$cuckoo" query -q "$dir/p.cf" --keys "$dir/big" 2>"$dir/err"
  [[ -s $dir/err ]] && fail "progress printed when stderr is not a terminal"
fi

# ---- one parser: an option is spelled, checked and reported one way by
# every command that takes it
# err_of NAME CMD...: CMD must fail (exit 2); its stderr is kept as e.NAME.
err_of() {
  local name=$1; shift
  "$@" >/dev/null 2>"$dir/e.$name" </dev/null
  local got=$?
  [[ $got == 2 ]] || fail "exit $got (want 2): $*"
}
# errs_agree WHAT WANT: every e.* kept is the same one line, holding WANT.
errs_agree() {
  local e first=
  for e in "$dir"/e.*; do
    [[ $(wc -l <"$e") == 1 ]] || fail "$1: not one line: $(cat "$e")"
    grep -qF -- "$2" "$e" || fail "$1: lacks '$2': $(cat "$e")"
    [[ -z $first ]] && first=$e && continue
    cmp -s "$first" "$e" || fail "$1: $(basename "$first") '$(cat "$first")' but $(basename "$e") '$(cat "$e")'"
  done
  rm -f "$dir"/e.*
}
m=$dir/m.cf
expect 0 "$cuckoo" create "$m" --capacity 100
for bad in "--wait abc|--wait wants seconds" "--wait=-1|--wait wants seconds" "--wait|--wait needs a value"; do
  opt=${bad%%|*}
  err_of add "$cuckoo" add "$m" x $opt
  err_of delete "$cuckoo" delete "$m" x $opt
  err_of create "$cuckoo" create "$m" --capacity 10 --force $opt
  err_of build "$cuckoo" build "$m" --capacity 10 --force $opt
  err_of merge "$cuckoo" merge "$m" "$m" $opt
  errs_agree "$opt" "${bad#*|}"
done
# The table's options: the filter-file commands and report read them alike
# (report then shows its usage).
for bad in "--bucket-size 3|wants 1, 2, 4 or 8" "--fingerprint-bits=40|wants a width" \
  "--buckets 2,000|no digit separators" "--max-kicks 0|wants an eviction budget" \
  "--seed -1|wants an unsigned" "--seed|--seed needs a value"; do
  opt=${bad%%|*}
  err_of create "$cuckoo" create "$dir/x.cf" --capacity 10 $opt
  err_of build "$cuckoo" build "$dir/x.cf" --capacity 10 $opt
  err_of report "$cuckoo" report $opt
  grep -q '^usage: cuckoo report' "$dir/e.report" || fail "report $opt: no usage"
  head -1 "$dir/e.report" >"$dir/e.report1" && rm "$dir/e.report"
  errs_agree "$opt" "${bad#*|}"
done
# --grow's optional value (--grow=MODE): the same message for every command.
err_of create "$cuckoo" create "$dir/x.cf" --capacity 10 --grow=sideways
err_of build "$cuckoo" build "$dir/x.cf" --capacity 10 --grow=sideways
err_of add "$cuckoo" add "$m" x --grow=sideways
errs_agree "--grow=sideways" "cuckoo: --grow wants 'chain' or 'inplace', not 'sideways'"
[[ -e $dir/x.cf ]] && fail "a refused create or build wrote a file"
# export's and import's options: the same spellings and messages.
err_of a "$cuckoo" export "$m" k --chunk-bytes 8 --output "$dir/o.resp"
errs_agree "--chunk-bytes 8" "--chunk-bytes wants a size from 16 to"
err_of a "$cuckoo" export "$m" k --chunk-bytes=2,000 --output "$dir/o.resp"
errs_agree "--chunk-bytes=2,000" "no digit separators"
err_of a "$cuckoo" export "$m" k --expansion 3 --output "$dir/o.resp"
errs_agree "--expansion 3" "--expansion wants 0 or a power of two"
for last in "export $m k --output $dir/o.resp --expansion" "import $dir/i.cf --key" "add $m --keys"; do
  err_of a "$cuckoo" $last
  errs_agree "$last" "cuckoo: ${last##* } needs a value"
done
err_of a "$cuckoo" export "$m" k --output=
errs_agree "--output=" "--output wants a file name"
err_of export "$cuckoo" export "$m" k --zz
err_of import "$cuckoo" import "$dir/i.cf" --zz
err_of query "$cuckoo" query "$m" --zz
err_of report "$cuckoo" report --zz
for c in export import query report; do
  [[ $(head -1 "$dir/e.$c") == "cuckoo: $c: unknown option '--zz' (see --help)" ]] || fail "$c: $(cat "$dir/e.$c")"
done
# A positional where a command takes none (report then shows its usage).
err_of report "$cuckoo" report 12
[[ $(head -1 "$dir/e.report") == "cuckoo: report: unexpected argument '12'" ]] || fail "report 12: $(cat "$dir/e.report")"
rm -f "$dir"/e.*
[[ -e $dir/o.resp || -e $dir/i.cf ]] && fail "a refused export or import wrote a file"
# "--name=value" and "--" work for export and import as for every command.
expect 0 "$cuckoo" add "$m" x
expect 0 "$cuckoo" export --expansion=4 --chunk-bytes=64 --output="$dir/o.resp" -- "$m" -k
grep -aq -- '-k' "$dir/o.resp" || fail "export -- ... -k: the key is not in the stream"
expect 0 "$cuckoo" import --key=-k -- "$dir/i.cf" "$dir/o.resp"
cmp -s "$m" "$dir/i.cf" || fail "export then import did not give the file back"
# Counts for people are grouped one way (query --summary, like report's table).
seq 1 1234 >"$dir/t.keys"
expect 0 "$cuckoo" build "$dir/t.cf" --capacity 2000 --keys "$dir/t.keys"
expect 0 "$cuckoo" query -q --summary "$dir/t.cf" --keys "$dir/t.keys"
[[ $(cat "$dir/err") == "1,234 of 1,234 found" ]] || fail "grouped summary: $(cat "$dir/err")"
# The answers come before the summary when both go to one file.
"$cuckoo" query --summary "$f" --keys "$dir/q" >"$dir/both" 2>&1
[[ $(tail -n 1 "$dir/both") == "2 of 3 found" && $(wc -l <"$dir/both") == 4 ]] ||
  fail "summary not after the answers: $(cat "$dir/both")"

# ---- merge: parts built in parallel equal one filter built from all keys
seq 1 20000 | sed 's/^/user-/' >"$dir/all"
opts=(--capacity 20000 --seed 9)
expect 0 "$cuckoo" build "$dir/whole.cf" "${opts[@]}" --keys "$dir/all"
(cd "$dir" && split -n l/4 all part. && ls part.?? | xargs -P 4 -I{} "$cuckoo" build {}.cf "${opts[@]}" --keys {}) ||
  fail "parallel build of the parts"
expect 0 "$cuckoo" merge "$dir/merged.cf" "$dir"/part.??.cf
for field in items num_buckets fingerprint_bits bucket_size seed; do
  a=$("$cuckoo" info --json "$dir/merged.cf" | grep -o "\"$field\": [0-9]*")
  b=$("$cuckoo" info --json "$dir/whole.cf" | grep -o "\"$field\": [0-9]*")
  [[ -n $a && $a == "$b" ]] || fail "merged $field '$a' != whole '$b'"
done
expect 0 "$cuckoo" query -q "$dir/merged.cf" --keys "$dir/all"      # no false negatives
{ cat "$dir/all"; seq 1 100000 | sed 's/^/other-/'; } >"$dir/probe"
"$cuckoo" query "$dir/merged.cf" --keys "$dir/probe" >"$dir/q1"
"$cuckoo" query "$dir/whole.cf" --keys "$dir/probe" >"$dir/q2"
cmp -s "$dir/q1" "$dir/q2" || fail "merged and whole filters answer differently"
grep -q $'\tyes$' <(tail -n 100000 "$dir/q1") || fail "no false positive at all among 100000 (the probe is too weak)"
expect 0 "$cuckoo" info "$dir/merged.cf"                              # verifies the checksum
# OUT exists: refused without --force, unless it is an input (merge into it).
expect 2 "$cuckoo" merge "$dir/merged.cf" "$dir/part.aa.cf"; one_line_error; err_has "--force"
cp "$dir/part.aa.cf" "$dir/into.cf"
expect 0 "$cuckoo" merge "$dir/into.cf" "$dir/into.cf" "$dir/part.ab.cf"
expect 0 "$cuckoo" query -q "$dir/into.cf" --keys "$dir/part.ab"
# Shapes must match: the difference is named, nothing written.
expect 0 "$cuckoo" build "$dir/other.cf" --capacity 20000 --seed 10 --keys "$dir/part.aa"
expect 2 "$cuckoo" merge "$dir/bad.cf" "$dir/part.aa.cf" "$dir/other.cf"; one_line_error
err_has "seed differ (10 vs 9)"
[[ -e $dir/bad.cf ]] && fail "a failed merge wrote a file"
# Too many items: all or nothing.
expect 0 "$cuckoo" build "$dir/m1.cf" --capacity 3000 --keys <(head -2000 "$dir/all")
expect 0 "$cuckoo" build "$dir/m2.cf" --capacity 3000 --keys <(tail -2000 "$dir/all")
cp "$dir/m1.cf" "$dir/m1.before"
expect 2 "$cuckoo" merge "$dir/m1.cf" "$dir/m1.cf" "$dir/m2.cf"; one_line_error
err_has "nothing written"
cmp -s "$dir/m1.cf" "$dir/m1.before" || fail "a failed merge changed its output"
# Parts grown in place merge whatever their sizes (same --seed and --fpp).
expect 0 "$cuckoo" build "$dir/ip1.cf" --capacity 100 --grow=inplace --seed 9 --keys <(head -1000 "$dir/all")
expect 0 "$cuckoo" build "$dir/ip2.cf" --capacity 100 --grow=inplace --seed 9 --keys <(tail -19000 "$dir/all")
expect 0 "$cuckoo" merge "$dir/ipm.cf" "$dir/ip1.cf" "$dir/ip2.cf"
expect 0 "$cuckoo" query -q "$dir/ipm.cf" --keys "$dir/all"
[[ $("$cuckoo" info --json "$dir/ipm.cf" | grep -o '"items": [0-9]*' | head -1) == '"items": 20000' ]] ||
  fail "in-place merge: $("$cuckoo" info --json "$dir/ipm.cf")"
expect 0 "$cuckoo" build "$dir/ip3.cf" --capacity 100 --grow=inplace --seed 9 --fpp 0.01 --keys "$dir/part.aa"
expect 2 "$cuckoo" merge "$dir/bad.cf" "$dir/ip1.cf" "$dir/ip3.cf"; one_line_error
err_has "their --fpp differ (0.01 vs 0.001)"
expect 0 "$cuckoo" build "$dir/ip4.cf" --capacity 100 --grow=inplace --seed 9 --fingerprint-bits 16 --keys "$dir/part.aa"
expect 2 "$cuckoo" merge "$dir/bad.cf" "$dir/ip1.cf" "$dir/ip4.cf"; one_line_error
err_has "their slots differ (16 vs 32 bits: --fingerprint-bits)"
expect 2 "$cuckoo" merge "$dir/bad.cf" "$dir/ip1.cf" "$dir/part.aa.cf"; one_line_error
err_has "one grows in place (--grow=inplace), the other not"
# In place, the slot width and the bound go together; refusals name the reason.
expect 2 "$cuckoo" create "$dir/bad.cf" --capacity 100 --grow=inplace --fingerprint-bits 12; one_line_error
err_has "--grow=inplace takes slots of 15, 16 or 32 bits, not --fingerprint-bits 12"
expect 2 "$cuckoo" create "$dir/bad.cf" --capacity 100 --grow=inplace --fingerprint-bits 15 --fpp 0.0001
one_line_error
err_has "the first table, filled, would pass --fpp 0.0001"
expect 2 "$cuckoo" create "$dir/bad.cf" --capacity 100 --grow=inplace --fpp 1e-12; one_line_error
err_has "--fpp 1e-12 is too small for --grow=inplace"
expect 2 "$cuckoo" create "$dir/bad.cf" --capacity 100 --fingerprint-bits 15 --fpp 0.01; one_line_error
err_has "with --grow=inplace they go together"
expect 0 "$cuckoo" build "$dir/ip5.cf" --capacity 100 --grow=inplace --fingerprint-bits 15 --fpp 0.01 \
  --keys <(head -20000 "$dir/all")
"$cuckoo" info "$dir/ip5.cf" | grep -q "^growth  *in place: 8 doublings" || fail "ip5: $("$cuckoo" info "$dir/ip5.cf")"
# The kind, in the library's words (cf_kind_name), in text and JSON.
"$cuckoo" info "$dir/ip5.cf" | grep -q "^kind  *in place$" || fail "ip5 kind: $("$cuckoo" info "$dir/ip5.cf")"
"$cuckoo" info --json "$dir/ip5.cf" | grep -q '"kind": "in place"' || fail "ip5 json kind"
"$cuckoo" info "$dir/ip4.cf" | grep -q "^kind  *in place$" || fail "ip4 kind"
# A bound the doublings reach: the message says which, and what to change.
expect 0 "$cuckoo" create "$dir/ip6.cf" --capacity 100 --grow=inplace --fingerprint-bits 15
expect 2 "$cuckoo" add "$dir/ip6.cf" --keys <(head -20000 "$dir/all"); one_line_error
err_has "the filter cannot double again"
err_has "would pass --fpp 0.001 with 15-bit slots after 2 doublings"
# (The failed add saved nothing.)  400 keys take it to that bound: info says so.
"$cuckoo" info "$dir/ip6.cf" | grep -q "; can grow$" || fail "ip6: $("$cuckoo" info "$dir/ip6.cf")"
expect 0 "$cuckoo" add "$dir/ip6.cf" --keys <(head -400 "$dir/all")
"$cuckoo" info "$dir/ip6.cf" |
  grep -q "^growth  *in place: 2 doublings.*; cannot grow: growing could pass the target FPP$" ||
  fail "ip6: $("$cuckoo" info "$dir/ip6.cf")"
"$cuckoo" info "$dir/ip6.cf" --json | grep -q '"growth_limit": "fpp"' ||
  fail "ip6 json: $("$cuckoo" info "$dir/ip6.cf" --json)"
# ---- expiring filters: --expire, the wall clock or --at, refreshes, time never backwards
expect 0 "$cuckoo" create "$dir/exp.cf" --capacity 1000 --expire 1h --at 1000
expect 0 "$cuckoo" add "$dir/exp.cf" --at 1000 alice bob
expect 0 "$cuckoo" query "$dir/exp.cf" --at 4599 alice bob           # within the hour
span=$("$cuckoo" info "$dir/exp.cf" --json | sed -n 's/.*"expire_span": \([0-9]*\).*"stamps": \([0-9]*\).*/\1 \2/p')
read -r span stamps <<<"$span"
[[ -n $span && $stamps -ge 1 ]] || fail "info --json lacks the window: $("$cuckoo" info "$dir/exp.cf" --json)"
gone=$((1000 + (stamps + 1) * span))
expect 1 "$cuckoo" query "$dir/exp.cf" --at "$gone" alice             # gone a stamp after the hour
expect 0 "$cuckoo" add "$dir/exp.cf" --at 3000 alice                   # a refresh ...
expect 0 "$cuckoo" query "$dir/exp.cf" --at "$gone" alice              # ... starts its hour again
expect 1 "$cuckoo" query "$dir/exp.cf" --at "$gone" bob
[[ $("$cuckoo" count "$dir/exp.cf" --at 3000 alice) == 1 ]] || fail "a refresh added a copy"
expect 2 "$cuckoo" add "$dir/exp.cf" --at 10 carol; one_line_error
err_has "time never runs backwards"
expect 2 "$cuckoo" query "$dir/exp.cf" --at 10 alice; one_line_error
"$cuckoo" info "$dir/exp.cf" | grep -q "^clock  *3000 " || fail "info: $("$cuckoo" info "$dir/exp.cf")"
expect 0 "$cuckoo" query "$dir/exp.cf" alice --at 3001
expect 1 "$cuckoo" query "$dir/exp.cf" alice                           # the wall clock: long gone
expect 2 "$cuckoo" create "$dir/bad.cf" --capacity 10 --expire 1h --grow; one_line_error
err_has "cannot be combined with --grow"
expect 2 "$cuckoo" create "$dir/bad.cf" --capacity 10 --expire 1x; one_line_error
err_has "--expire wants a duration"
expect 2 "$cuckoo" export "$dir/exp.cf" k --output "$dir/exp.resp"; one_line_error
err_has "an expiring file cannot become a key yet"
expect 0 "$cuckoo" create "$dir/plain.cf" --capacity 10
expect 2 "$cuckoo" query "$dir/plain.cf" --at 5 k; one_line_error
err_has "does not expire"
# build --expire: every key written at --at, a repeated key refreshed, not copied
printf 'x\ny\nx\n' | expect 0 "$cuckoo" build "$dir/built.cf" --capacity 100 --expire 1h --at 500
[[ $("$cuckoo" count "$dir/built.cf" --at 500 x) == 1 ]] || fail "build --expire stored a key twice"
expect 0 "$cuckoo" query "$dir/built.cf" --at 4099 x y
expect 1 "$cuckoo" query "$dir/built.cf" --at 9999 x
printf 'x\n' | expect 2 "$cuckoo" build "$dir/bad.cf" --capacity 10 --expire 1h --grow; one_line_error
err_has "cannot be combined with --grow"
# Eight windows' worth through a filter sized for one window's keys (500 per
# 100 s, 25 every 5 s): never full, and the last keys all found.
expect 0 "$cuckoo" create "$dir/stream.cf" --capacity 500 --expire 100 --at 0
for step in $(seq 0 159); do
  seq $((step * 25)) $((step * 25 + 24)) | sed 's/^/k/' >"$dir/w.keys"
  expect 0 "$cuckoo" add "$dir/stream.cf" --at $((step * 5)) --keys "$dir/w.keys"
done
expect 0 "$cuckoo" query "$dir/stream.cf" --at 795 -q --keys "$dir/w.keys"
expect 1 "$cuckoo" query "$dir/stream.cf" --at 795 -q k0

[[ -e $dir/bad.cf ]] && fail "a refused create wrote a file"
[[ -e $dir/bad.cf ]] && fail "a failed merge wrote a file"

finish
