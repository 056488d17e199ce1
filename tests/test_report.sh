#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# test_report.sh CUCKOO SCRATCH -- `cuckoo report` on a small table (fast
# under ASan): every number is checked against the others and against the
# formulas it claims to follow, recomputed here from the report's own output;
# CSV shape, JSON, determinism, charts and bad flags.
set -euo pipefail
cuckoo=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir"
small=(--buckets 4096 --queries 50000)

fail() { echo "FAIL: $*" >&2; exit 1; }
# get FILE SECTION ROW METRIC -> value
get() { awk -F, -v s="$2" -v r="$3" -v m="$4" '$1==s && $2==r && $3==m {print $4; f=1} END {if (!f) exit 1}' "$1" ||
        fail "no $2,$3,$4 in $1"; }
# check NAME AWK-CONDITION [var=value...]: the condition must hold;
# check_with NAME AWK-STATEMENTS AWK-CONDITION [var=value...]: after the statements.
check_with() { local name=$1 pre=$2 cond=$3; shift 3
               local vars=(); for v in "$@"; do vars+=(-v "$v"); done
               awk "${vars[@]}" "BEGIN { $pre; exit !($cond) }" || fail "$name: $cond with $*"; }
check() { local name=$1 cond=$2; shift 2; check_with "$name" "" "$cond" "$@"; }

"$cuckoo" report "${small[@]}" --csv >"$dir/a.csv" 2>"$dir/a.err"
csv=$dir/a.csv
[ ! -s "$dir/a.err" ] || fail "stderr is not a terminal, yet it got: $(head -c 200 "$dir/a.err")"

# ---- CSV shape: one header, four columns everywhere, known sections in order
[ "$(head -1 "$csv")" = "section,row,metric,value" ] || fail "CSV header"
awk -F, 'NF != 4 { exit 1 }' "$csv" || fail "a CSV line without 4 columns"
sections=$(tail -n +2 "$csv" | cut -d, -f1 | uniq | tr '\n' ' ')
[ "$sections" = "params fill false_negatives fpp kicks delete failure compare crossover semi_sort compare_semi crossover_semi max_load kicks_by_load " ] ||
  fail "sections: $sections"

f=$(get "$csv" params "" fingerprint_bits); b=$(get "$csv" params "" bucket_size)
nb=$(get "$csv" params "" buckets); load=$(get "$csv" params "" load)
queries=$(get "$csv" params "" queries)
[ "$f/$b/$nb/$queries" = "12/4/4096/50000" ] || fail "params echoed: $f/$b/$nb/$queries"
[ "$(get "$csv" params "" semi_sort)" = false ] || fail "semi_sort is on without --semi-sort"

# ---- 1. items, memory, bits per item
slots=$(get "$csv" fill "" slots); items=$(get "$csv" fill "" items)
bytes=$(get "$csv" fill "" table_bytes); bpi=$(get "$csv" fill "" bits_per_item)
check slots "s+0 == nb * b" s="$slots" nb="$nb" b="$b"
[ "$(get "$csv" fill "" target_reached)" = true ] || fail "target not reached"
check "items = floor(load * slots)" "i+0 == int(l * s)" i="$items" l="$load" s="$slots"
check "memory = ceil(nb*b*f/8)" "m+0 == int((nb*b*f + 7) / 8)" m="$bytes" nb="$nb" b="$b" f="$f"
[ "$(get "$csv" fill "" bits_per_slot)" = "$f" ] || fail "plain buckets store f bits per slot"
check "bits/item = table bits / items" "(x - m*8/i)^2 < 1e-12" x="$bpi" m="$bytes" i="$items"
check "fill load = items/slots" "(x - i/s)^2 < 1e-16" x="$(get "$csv" fill "" load)" i="$items" s="$slots"

# ---- 2. no false negatives
[ "$(get "$csv" false_negatives "" checked)" = "$items" ] || fail "not every item checked"
[ "$(get "$csv" false_negatives "" false_negatives)" = 0 ] || fail "false negatives"

# ---- 3. FPP: the rate, its Wilson interval and the theory, recomputed here
fp=$(get "$csv" fpp "" false_positives); fpp=$(get "$csv" fpp "" fpp)
lo=$(get "$csv" fpp "" ci95_low); hi=$(get "$csv" fpp "" ci95_high)
theory=$(get "$csv" fpp "" theory); bound=$(get "$csv" fpp "" bound)
check "fpp = fp/queries" "(p - k/n)^2 < 1e-18" p="$fpp" k="$fp" n="$queries"
wilson='z = 1.959963984540054; p = k/n; d = 1 + z*z/n; c = (p + z*z/(2*n))/d;
        h = z*sqrt(p*(1-p)/n + z*z/(4*n*n))/d'
check_with "Wilson interval" "$wilson" "(lo - (c-h))^2 < 1e-16 && (hi - (c+h))^2 < 1e-16" \
  k="$fp" n="$queries" lo="$lo" hi="$hi"
lf=$(get "$csv" fill "" load)
check_with "theory formula" "t = 1 - (1 - 1/(2^f - 1))^(2*b*l)" "(x - t)^2 < 1e-20" \
  x="$theory" f="$f" b="$b" l="$lf"
check "bound 2b/2^f" "x+0 == 2*b/2^f" x="$bound" b="$b" f="$f"
inside=$(awk -v lo="$lo" -v hi="$hi" -v t="$theory" 'BEGIN { print (lo+0 <= t+0 && t+0 <= hi+0) ? "true" : "false" }')
[ "$(get "$csv" fpp "" theory_in_ci95)" = "$inside" ] || fail "theory_in_ci95 flag is not $inside"
# The theory must lie in the measurement's interval.  This small table is one
# draw among many library versions, so the check uses a 99.9% interval (z =
# 3.29) to fail only for a real disagreement; the defaults test uses the 95% one.
check_with "theory inside the 99.9% interval" "${wilson/1.959963984540054/3.290526731491926}" \
  "c-h <= t+0 && t+0 <= c+h" k="$fp" n="$queries" t="$theory"

# ---- 4. kicks
kin=$(get "$csv" kicks "" inserts); ktot=$(get "$csv" kicks "" total)
[ "$kin" = "$items" ] || fail "kicks counted over $kin inserts, not $items"
check "mean kicks = total/inserts" "(x - t/n)^2 < 1e-16" x="$(get "$csv" kicks "" mean)" t="$ktot" n="$kin"
check "p99 <= max" "p+0 <= m+0" p="$(get "$csv" kicks "" p99)" m="$(get "$csv" kicks "" max)"
binned=$(awk -F, '$1=="kicks_by_load" && $3=="inserts" {n += $4} END {print n}' "$csv")
check "kick bins cover the fill and the failure phase" "n+0 >= i+0" n="$binned" i="$items"

# ---- 5. delete demonstration
[ "$(get "$csv" delete "" items)/$(get "$csv" delete "" found_before)/$(get "$csv" delete "" found_after)" = 4/4/0 ] ||
  fail "delete demo not 4 in, 4 found, 0 found after"
[ "$(get "$csv" delete "" others_lost)" = 0 ] || fail "delete lost other items"

# ---- 6. fill to the first failure: nothing lost
[ "$(get "$csv" failure "" failed)" = true ] || fail "no failed insert"
[ "$(get "$csv" failure "" lost)" = 0 ] || fail "items lost at the failure"
check "failure load = items/slots, above the target" "(x - i/s)^2 < 1e-16 && x+0 >= l+0" \
  x="$(get "$csv" failure "" load)" i="$(get "$csv" failure "" items)" s="$slots" l="$lf"

# ---- 7. Cuckoo vs Bloom: 21 widths, same bits, optimal k, formulas; and the
# semi-sorted series (f = 5..16, f - 1 bits per slot) against its own Bloom filters.
rows_of() { awk -F, -v s="$2" '$1==s && $3=="items" {print $2}' "$1" | tr '\n' ' '; }
# check_series CSV SECTION FIRST LAST SLOT_BITS_LESS: every row against the formulas.
check_series() {
  local csv=$1 sec=$2 lo=$3 hi=$4 less=$5 w r n m k cfp bfp win want bps slots
  slots=$(get "$csv" fill "" slots)
  [ "$(rows_of "$csv" "$sec")" = "$(for w in $(seq "$lo" "$hi"); do printf 'f=%s ' "$w"; done)" ] ||
    fail "$sec rows: $(rows_of "$csv" "$sec")"
  for w in $(seq "$lo" "$hi"); do
    r="f=$w"; n=$(get "$csv" "$sec" "$r" items); m=$(get "$csv" "$sec" "$r" table_bits)
    k=$(get "$csv" "$sec" "$r" bloom_k); cfp=$(get "$csv" "$sec" "$r" cuckoo_false_positives)
    bfp=$(get "$csv" "$sec" "$r" bloom_false_positives); win=$(get "$csv" "$sec" "$r" winner)
    bps=$(get "$csv" "$sec" "$r" bits_per_slot)
    [ "$bps" = $((w - less)) ] || fail "$sec $r stores $bps bits per slot, not $((w - less))"
    check "$sec $r table bits = slots * (f - $less)" "m+0 == s*(w - d)" m="$m" s="$slots" w="$w" d="$less"
    check "$sec $r bits/item" "(x - m/n)^2 < 1e-12" x="$(get "$csv" "$sec" "$r" bits_per_item)" m="$m" n="$n"
    check "$sec $r load = items/slots" "(x - n/s)^2 < 1e-16" x="$(get "$csv" "$sec" "$r" load)" n="$n" s="$slots"
    # Same FPP formula for both layouts: that of f-bit fingerprints.
    check_with "$sec $r cuckoo theory" "t = 1 - (1 - 1/(2^w - 1))^(2*b*n/s)" "(x - t)^2 <= (1e-9*t)^2" \
      x="$(get "$csv" "$sec" "$r" cuckoo_theory)" w="$w" b="$b" n="$n" s="$slots"
    check_with "$sec $r optimal k" "o = int(m/n*log(2) + 0.5); if (o < 1) o = 1" "k+0 == o" k="$k" m="$m" n="$n"
    check_with "$sec $r Bloom theory" "t = (1 - exp(-k*n/m))^k" "(x - t)^2 <= (1e-9*t)^2" \
      x="$(get "$csv" "$sec" "$r" bloom_theory)" k="$k" n="$n" m="$m"
    want=$(awk -v c="$cfp" -v b="$bfp" 'BEGIN { print (c+0 < b+0) ? "cuckoo" : (c+0 > b+0) ? "bloom" : "tie" }')
    [ "$win" = "$want" ] || fail "$sec $r winner $win with $cfp vs $bfp"
    want=$(awk -v cl="$(get "$csv" "$sec" "$r" cuckoo_ci95_low)" -v ch="$(get "$csv" "$sec" "$r" cuckoo_ci95_high)" \
               -v bl="$(get "$csv" "$sec" "$r" bloom_ci95_low)" -v bh="$(get "$csv" "$sec" "$r" bloom_ci95_high)" \
               'BEGIN { print (ch+0 < bl+0 || bh+0 < cl+0) ? "true" : "false" }')
    [ "$(get "$csv" "$sec" "$r" significant)" = "$want" ] || fail "$sec $r significant is not $want"
  done
}
# check_crossover CSV SECTION CROSSOVER_SECTION: the crossover and the measured
# winner recomputed from the rows' theories, bits per item and winners.
check_crossover() {
  local want got
  want=$(awk -F, -v s="$2" '
    $1==s && $3=="bits_per_item" {n++; x[n]=$4}
    $1==s && $3=="cuckoo_theory" {c[n]=$4}
    $1==s && $3=="bloom_theory" {b[n]=$4}
    $1==s && $3=="winner" {w[n]=$4; f[n]=substr($2, 3)}
    END {
      found = "false"; bits = ""; fpp = ""
      for (i = 1; i < n; i++) {
        if (c[i] <= 0 || b[i] <= 0 || c[i+1] <= 0 || b[i+1] <= 0) continue
        da = log(c[i]) - log(b[i]); db = log(c[i+1]) - log(b[i+1])
        if (da >= 0 && db < 0) { t = da/(da - db); found = "true"
          bits = x[i] + t*(x[i+1] - x[i]); fpp = exp(log(c[i]) + t*(log(c[i+1]) - log(c[i]))); break }
      }
      from = 0; for (i = n; i >= 1 && w[i] != "bloom"; i--) from = f[i]
      printf "%s %.6g %.6g %d\n", found, bits, fpp, from
    }' "$1")
  got=$(awk -v a="$(get "$1" "$3" "" found)" -v x="$(get "$1" "$3" "" bits_per_item)" \
            -v p="$(get "$1" "$3" "" fpp)" -v m="$(get "$1" "$3" "" measured_from_f)" \
            'BEGIN { printf "%s %.6g %.6g %d\n", a, x, p, m }')
  [ "$got" = "$want" ] || fail "$3: reported '$got', recomputed '$want'"
}
check_series "$csv" compare 4 24 0
check_crossover "$csv" compare crossover
[ "$(get "$csv" compare f=12 items)" = "$items" ] || fail "compare f=12 has other items"
[ "$(get "$csv" compare f=12 cuckoo_false_positives)" = "$fp" ] || fail "compare f=12 FPP differs"
[ "$(get "$csv" crossover "" found)" = true ] || fail "no crossover"
check "crossover between f=8 and f=16" "x+0 > bl+0 && x+0 < bh+0" x="$(get "$csv" crossover "" bits_per_item)" \
  bl="$(get "$csv" compare f=8 bits_per_item)" bh="$(get "$csv" compare f=16 bits_per_item)"

[ "$(get "$csv" semi_sort "" available)" = true ] || fail "no semi-sorted series with b = 4"
[ -z "$(get "$csv" semi_sort "" reason)" ] || fail "a reason for an available series"
lo=$(get "$csv" semi_sort "" min_f); hi=$(get "$csv" semi_sort "" max_f)
[ "$lo/$hi" = 5/16 ] || fail "semi-sorted widths $lo..$hi, not the library's 5..16"
check_series "$csv" compare_semi "$lo" "$hi" 1
check_crossover "$csv" compare_semi crossover_semi
for w in $(seq "$lo" "$hi"); do
  r="f=$w"; n=$(get "$csv" compare_semi "$r" items)
  # One bit less per slot: (f-1) bits per slot over the items it holds.
  check "semi $r bits/item = (f-1)*slots/items" "(x - (w-1)*s/n)^2 < 1e-12" \
    x="$(get "$csv" compare_semi "$r" bits_per_item)" w="$w" s="$slots" n="$n"
  # Both reach the target load (same members), or narrow widths stop at
  # their first failure (semi-sorted slots move in another order), close
  # to each other.
  pn=$(get "$csv" compare "$r" items)
  if [ "$pn" = "$items" ] && [ "$n" = "$items" ]; then
    check "semi $r bits/item = plain - slots/items" "(x - (p - s/n))^2 < 1e-12" \
      x="$(get "$csv" compare_semi "$r" bits_per_item)" s="$slots" n="$n" p="$(get "$csv" compare "$r" bits_per_item)"
  else
    check "semi $r stops within 2% of plain" "(n - p)^2 < (0.02 * p)^2" n="$n" p="$pn"
  fi
  # Its Bloom filter has the bits of plain f-1's table and the items it holds.
  [ "$(get "$csv" compare_semi "$r" table_bits)" = "$(get "$csv" compare "f=$((w-1))" table_bits)" ] ||
    fail "semi $r table bits differ from plain f=$((w-1))"
  # With the same items too (both full), it answers exactly like plain f-1's.
  if [ "$n" = "$(get "$csv" compare "f=$((w-1))" items)" ]; then
    [ "$(get "$csv" compare_semi "$r" bloom_false_positives)" = "$(get "$csv" compare "f=$((w-1))" bloom_false_positives)" ] ||
      fail "the Bloom filter of semi $r answers unlike plain f=$((w-1))'s, with the same bits and items"
  fi
done
# Semi-sorting moves the crossover to fewer bits per item and a higher FPP.
check "semi-sorted crossover below plain's in bits, above in FPP" "sx+0 < px+0 && sp+0 > pp+0" \
  sx="$(get "$csv" crossover_semi "" bits_per_item)" px="$(get "$csv" crossover "" bits_per_item)" \
  sp="$(get "$csv" crossover_semi "" fpp)" pp="$(get "$csv" crossover "" fpp)"

# ---- 8. max load by bucket size: same slots, nothing lost
for bs in 1 2 4 8; do
  r="b=$bs"
  check "$r slots" "s+0 == int(t/b)*b" s="$(get "$csv" max_load "$r" slots)" t="$slots" b="$bs"
  check "$r load = items/slots" "(x - i/s)^2 < 1e-16" x="$(get "$csv" max_load "$r" max_load)" \
    i="$(get "$csv" max_load "$r" items)" s="$(get "$csv" max_load "$r" slots)"
  [ "$(get "$csv" max_load "$r" lost)" = 0 ] || fail "$r lost items"
done
check "b=4 reaches the target load" "x+0 >= l+0" x="$(get "$csv" max_load b=4 max_load)" l="$load"

# ---- determinism: same seed, same bytes; another seed, other keys
"$cuckoo" report "${small[@]}" --csv >"$dir/b.csv"
cmp -s "$csv" "$dir/b.csv" || fail "same seed, different CSV"
"$cuckoo" report "${small[@]}" --json >"$dir/a.json"
"$cuckoo" report "${small[@]}" --json >"$dir/b.json"
cmp -s "$dir/a.json" "$dir/b.json" || fail "same seed, different JSON"
if command -v python3 >/dev/null; then
  python3 - "$dir/a.json" "$items" "$fp" <<'EOF' || fail "JSON does not match the CSV"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["fill"]["items"] == int(sys.argv[2])
assert d["fpp"]["false_positives"] == int(sys.argv[3])
assert [r["f"] for r in d["compare"]] == list(range(4, 25))
assert [r["b"] for r in d["max_load"]] == [1, 2, 4, 8]
assert d["params"]["semi_sort"] is False
assert d["semi_sort"]["available"] is True and d["semi_sort"]["reason"] is None
assert [r["f"] for r in d["compare_semi"]] == list(range(5, 17))
assert all(r["bits_per_slot"] == r["f"] - 1 for r in d["compare_semi"])
assert d["crossover_semi"]["found"] is True
EOF
fi
"$cuckoo" report "${small[@]}" --seed 7 --csv >"$dir/c.csv"
! cmp -s "$csv" "$dir/c.csv" || fail "another seed gave the same CSV"
[ "$(get "$dir/c.csv" params "" seed)" = 7 ] || fail "--seed not applied"

# ---- flags reach the experiment
"$cuckoo" report --buckets 1000 --bucket-size 2 --fingerprint-bits 9 --load 0.5 --queries 1000 \
  --max-kicks 50 --csv >"$dir/d.csv"
[ "$(get "$dir/d.csv" fill "" items)" = 1000 ] || fail "--load 0.5 of 2000 slots"
[ "$(get "$dir/d.csv" fill "" table_bytes)" = 2250 ] || fail "1000*2*9 bits = 2250 bytes"
[ "$(get "$dir/d.csv" params "" max_kicks)" = 50 ] || fail "--max-kicks"

# ---- bucket size 2: no semi-sorted series, and the output says why
[ "$(get "$dir/d.csv" semi_sort "" available)" = false ] || fail "a semi-sorted series with b = 2"
get "$dir/d.csv" semi_sort "" reason | grep -q 'bucket size 4' || fail "no reason for the missing series"
[ -z "$(rows_of "$dir/d.csv" compare_semi)" ] || fail "semi-sorted rows with b = 2"
[ "$(get "$dir/d.csv" crossover_semi "" found)" = false ] || fail "a semi-sorted crossover with b = 2"
[ -z "$(get "$dir/d.csv" crossover_semi "" bits_per_item)" ] || fail "a semi-sorted crossover value with b = 2"
d2=(--buckets 1000 --bucket-size 2 --queries 1000)
"$cuckoo" report "${d2[@]}" >"$dir/d.txt"
grep -q 'semi-sorted buckets: not measured, they need 4 slots per bucket' "$dir/d.txt" || fail "table: why no semi-sorted"
! grep -q '^   semi ' "$dir/d.txt" || fail "semi-sorted throughput with b = 2"
if command -v python3 >/dev/null; then
  "$cuckoo" report "${d2[@]}" --json >"$dir/d.json"
  python3 - "$dir/d.json" <<'EOF' || fail "JSON without the semi-sorted series"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["semi_sort"]["available"] is False and "bucket size 4" in d["semi_sort"]["reason"]
assert d["compare_semi"] == []
assert d["crossover_semi"]["found"] is False and d["crossover_semi"]["bits_per_item"] is None
EOF
fi
"$cuckoo" report "${d2[@]}" --plot "$dir/d-plots" >/dev/null 2>&1
[ "$(grep -vc '^#' "$dir/d-plots/fpp_semi.dat")" = 0 ] || fail "fpp_semi.dat has rows with b = 2"
grep -q 'needs 4 slots per bucket' "$dir/d-plots/fpp_semi.dat" || fail "fpp_semi.dat does not say why it is empty"
! grep -q 'fpp_semi.dat' "$dir/d-plots/report.gp" || fail "the chart plots an absent series"

# ---- --semi-sort: phases 1-6 on semi-sorted buckets, phases 7-8 unchanged
"$cuckoo" report "${small[@]}" --semi-sort --csv >"$dir/s.csv"
s=$dir/s.csv
[ "$(get "$s" params "" semi_sort)" = true ] || fail "--semi-sort not echoed"
sitems=$(get "$s" fill "" items); sbytes=$(get "$s" fill "" table_bytes)
[ "$sitems" = "$items" ] || fail "--semi-sort holds $sitems items, plain $items"
[ "$(get "$s" fill "" bits_per_slot)" = $((f - 1)) ] || fail "--semi-sort: not f - 1 bits per slot"
check "semi memory = ceil(nb*4*(f-1)/8)" "m+0 == int((nb*4*(f-1) + 7) / 8)" m="$sbytes" nb="$nb" f="$f"
check "semi bits/item = (f-1)*slots/items = plain - slots/items" \
  "(x - (f-1)*s/i)^2 < 1e-12 && (x - (p - s/i))^2 < 1e-12" x="$(get "$s" fill "" bits_per_item)" \
  f="$f" s="$slots" i="$items" p="$bpi"
[ "$(get "$s" false_negatives "" false_negatives)" = 0 ] || fail "--semi-sort: false negatives"
sfp=$(get "$s" fpp "" false_positives)
[ "$sfp" = "$(get "$csv" compare_semi "f=$f" cuckoo_false_positives)" ] ||
  fail "--semi-sort FPP differs from the same filter in compare_semi"
[ "$(get "$s" fpp "" theory)" = "$theory" ] || fail "--semi-sort: the theory is not that of f-bit fingerprints"
[ "$(get "$s" fpp "" bound)" = "$bound" ] || fail "--semi-sort: the bound is not 2b/2^f"
check_with "--semi-sort theory inside the 99.9% interval" "${wilson/1.959963984540054/3.290526731491926}" \
  "c-h <= t+0 && t+0 <= c+h" k="$sfp" n="$queries" t="$theory"
[ "$(get "$s" delete "" found_before)/$(get "$s" delete "" found_after)/$(get "$s" delete "" others_lost)" = 4/0/0 ] ||
  fail "--semi-sort delete demo"
[ "$(get "$s" failure "" failed)/$(get "$s" failure "" lost)" = true/0 ] || fail "--semi-sort: items lost at the failure"
# Phases 7 and 8 do not depend on --semi-sort.
diff <(grep -E '^(compare|crossover|semi_sort|compare_semi|crossover_semi|max_load),' "$csv") \
     <(grep -E '^(compare|crossover|semi_sort|compare_semi|crossover_semi|max_load),' "$s") >/dev/null ||
  fail "--semi-sort changed phase 7 or 8"
"$cuckoo" report "${small[@]}" --semi-sort --csv >"$dir/s2.csv"
cmp -s "$s" "$dir/s2.csv" || fail "--semi-sort: same seed, different CSV"
# The edges of the range, and the flag's order does not matter.
for w in 5 16; do
  "$cuckoo" report --semi-sort --buckets 1000 --fingerprint-bits "$w" --queries 1000 --csv >"$dir/s$w.csv"
  check "--semi-sort f=$w memory" "m+0 == 1000*4*(w-1)/8" m="$(get "$dir/s$w.csv" fill "" table_bytes)" w="$w"
  [ "$(get "$dir/s$w.csv" failure "" lost)/$(get "$dir/s$w.csv" false_negatives "" false_negatives)" = 0/0 ] ||
    fail "--semi-sort f=$w lost items"
done
"$cuckoo" report "${small[@]}" --semi-sort >"$dir/s.txt"
grep -q "semi-sorted buckets (--semi-sort): $((f - 1)) bits per slot" "$dir/s.txt" || fail "table: --semi-sort not said"

# ---- the table shows all nine parts
"$cuckoo" report "${small[@]}" >"$dir/table.txt"
for part in 1 2 3 4 5 6 7 8 9; do grep -q "^$part\. " "$dir/table.txt" || fail "table lacks part $part"; done
grep -q 'semi-sorted buckets (f = 5\.\.16)' "$dir/table.txt" || fail "table lacks the semi-sorted series"
[ "$(grep -c '^  *[0-9][0-9]*  *[0-9.]*  *[0-9.]*%' "$dir/table.txt")" = $((21 + 12)) ] || fail "table: not 21 + 12 rows"
grep -q '^   semi  *insert' "$dir/table.txt" || fail "table lacks the semi-sorted throughput"
"$cuckoo" report --help | grep -q -- '--fingerprint-bits' || fail "--help"

# ---- charts: report.csv is the CSV; PNGs when gnuplot is installed
"$cuckoo" report "${small[@]}" --plot "$dir/plots" >/dev/null 2>"$dir/plot.err"
cmp -s "$csv" "$dir/plots/report.csv" || fail "plots/report.csv differs from --csv"
[ "$(grep -vc '^#' "$dir/plots/fpp.dat")" = 21 ] || fail "fpp.dat rows"
[ "$(grep -vc '^#' "$dir/plots/fpp_semi.dat")" = 12 ] || fail "fpp_semi.dat rows"
grep -q '"fpp_semi.dat"' "$dir/plots/report.gp" || fail "the chart lacks the semi-sorted series"
if command -v gnuplot >/dev/null; then
  for c in fpp kicks max_load; do
    [ "$(head -c 4 "$dir/plots/$c.png" | od -An -c | tr -d ' ')" = '211PNG' ] || fail "$c.png is not a PNG"
    grep -q '<svg' "$dir/plots/$c.svg" || fail "$c.svg"
  done
else
  grep -q 'gnuplot' "$dir/plot.err" || fail "no hint about gnuplot"
fi

# ---- bad flags: usage on stderr, exit 2, nothing on stdout
bad() {
  local rc=0
  "$cuckoo" report "$@" >"$dir/bad.out" 2>"$dir/bad.err" || rc=$?
  [ "$rc" = 2 ] || fail "'$*' exited $rc, not 2"
  [ ! -s "$dir/bad.out" ] || fail "'$*' wrote to stdout"
  grep -q '^usage: cuckoo report' "$dir/bad.err" || fail "'$*' printed no usage"
}
bad --frobnicate
bad --fingerprint-bits 0
bad --fingerprint-bits 33
bad --fingerprint-bits 12x
bad --bucket-size 3
bad --bucket-size 16
bad --buckets 0
bad --buckets -5
bad --load 0
bad --load 1.5
bad --load abc
bad --queries 0
bad --max-kicks 0
bad --max-kicks 65536
bad --seed -1
bad --csv --json
bad --plot
bad --buckets
bad --semi-sort --bucket-size 2
bad --bucket-size 8 --semi-sort
bad --semi-sort --fingerprint-bits 4
bad --fingerprint-bits 17 --semi-sort
bad --semi-sort=1
bad --semi-sort --bucket-size 1
grep -q -- '--semi-sort needs 4 slots per bucket' "$dir/bad.err" || fail "--semi-sort with b = 1: no reason given"
bad --semi-sort --fingerprint-bits 20
grep -q -- '--semi-sort needs --fingerprint-bits from 5 to 16' "$dir/bad.err" ||
  fail "--semi-sort with f = 20: no reason given"
echo "test_report: ok"
