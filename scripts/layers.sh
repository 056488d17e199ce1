#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# layers.sh -- checks that src/ keeps its layers (docs/ARCHITECTURE.md):
#
#   base  <-  table, bloom  <-  kind  <-  format  <-  io  <-  api
#
# The use graph is derived, not declared: an arrow from file A to file B when
# A #includes B (internal headers, by their path under src/) or when A's
# object file needs a symbol that B's object file defines (nm on the objects
# of a build).  It fails, naming the files, on
#   - an arrow from a file to one in a higher layer, or between the two
#     layers of the same rank (table and bloom know nothing of each other);
#   - a cycle between files (two headers including each other, two objects
#     using each other's symbols, or any longer circle);
#   - a call of a public cf_* function from below api/ (the internals use the
#     internal functions: a public contract may change without changing them);
#   - a source file under src/ that src/sources.txt does not list, or the
#     reverse (the list is the one CMake and python/setup.py build).
#
# Then the same for the code outside src/ that is built on the public API:
# tools/, experiment/, cli_base/, bench/ and redis/, whose
# folders, and the folders each may use, are the table OUTSIDE below.  The
# arrows come from the #include lines and from the symbols each object needs
# of the others linked with it (the link lines of the build's targets).  It
# fails on an arrow between two folders that the table does not allow, a
# cycle between files, a header included other than by its path from its
# program's folder (tools/, bench/, redis/) or, a library's, by its name
# (cli_base.h, report.h, cf_redis_dump.h), a use of a symbol of src/ that is
# not public (cf__*), a file in no folder of the table, and two files of one
# name.
#
# usage: scripts/layers.sh [BUILD_DIR]     (default build/test-gcc; built first,
#                                          by CMake's default generator, Makefiles)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/test-gcc}
objdir=$build/CMakeFiles/cuckoofilter_objects.dir/src
[ -d "$objdir" ] || { echo "layers: no objects in $objdir (build first)" >&2; exit 2; }
command -v nm >/dev/null || { echo "layers: nm not found (Debian: binutils)" >&2; exit 2; }

# One line per object: "O <file>", then "D <symbol>" for each global symbol it
# defines and "U <symbol>" for each it needs.
objs=()
while IFS= read -r src; do
  obj=$objdir/$src.o
  [ -f "$obj" ] || { echo "layers: $obj missing (build first)" >&2; exit 2; }
  objs+=("$obj")
done < <(grep -v '^#' src/sources.txt | sed '/^$/d')
# (One nm for all: "object:[address] type symbol" lines.)
symbols=$(nm -g -A "${objs[@]}" | awk -v dir="$objdir/" '{
  split($0, part, ":"); src = substr(part[1], length(dir) + 1); sub(/\.o$/, "", src)
  if (src != last) { print "O " src; last = src }
  n = split(part[2], w, " ")
  if (n == 2 && w[1] == "U") print "U " w[2]; else if (n == 3) print "D " w[3]
}')

src_rc=0
python3 - "$symbols" <<'EOF' || src_rc=$?
import pathlib, re, sys

rank = {"base": 0, "table": 1, "bloom": 1, "kind": 2, "format": 3, "io": 4, "api": 5}
src = pathlib.Path("src")
listed = [l.strip() for l in (src / "sources.txt").read_text().splitlines()
          if l.strip() and not l.startswith("#")]
errors = []

files = sorted(str(p.relative_to(src)) for p in src.rglob("*.[ch]"))
for f in files:
    if f.split("/")[0] not in rank or f.count("/") != 1:
        errors.append(f"src/{f}: not in a layer folder ({', '.join(rank)})")
for f in sorted(set(p for p in files if p.endswith(".c")) ^ set(listed)):
    errors.append(f"src/{f}: " + ("not listed in src/sources.txt" if f in files
                                  else "listed in src/sources.txt but absent"))
by_name = {}
for f in files:
    name = f.split("/")[-1]
    if name in by_name:
        errors.append(f"src/{f}: same name as src/{by_name[name]} (names are unique)")
    by_name[name] = f

edges = {}  # (from, to) -> why
for f in files:
    for n, line in enumerate((src / f).read_text().splitlines(), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if m and not (pathlib.Path("include") / m.group(1)).is_file():  # public headers
            to = m.group(1) if m.group(1) in files else None
            if to is None:
                errors.append(f"src/{f}:{n}: includes {m.group(1)}, not a path under src/"
                              " (internal headers are included by layer/name.h)")
            else:
                edges.setdefault((f, to), f"#include \"{m.group(1)}\" (line {n})")

defined, needs, obj = {}, {}, None
for line in sys.argv[1].splitlines():
    kind, name = line.split(" ", 1)
    if kind == "O":
        obj = name
        needs[obj] = []
    elif kind == "D":
        defined[name] = obj
    else:
        needs[obj].append(name)
for o, syms in needs.items():
    for s in syms:
        to = defined.get(s)
        if to is None or to == o:
            continue
        edges.setdefault((o, to), f"uses {s}")
        if re.match(r"cf_[a-z]", s) and o.split("/")[0] != "api":
            errors.append(f"src/{o}: calls the public {s} (src/{to}); below api/, "
                          "use the internal function")

layer = lambda f: f.split("/")[0]
for (a, b), why in sorted(edges.items()):
    la, lb = layer(a), layer(b)
    if la != lb and la in rank and lb in rank and rank[lb] >= rank[la]:
        errors.append(f"src/{a} -> src/{b}: {la}/ uses {lb}/, a layer not below it ({why})")

# Cycles: depth-first search, reporting each circle once by its files.
graph = {}
for (a, b) in edges:
    graph.setdefault(a, []).append(b)
state, stack, seen = {}, [], set()
def visit(v):
    state[v] = 1
    stack.append(v)
    for w in sorted(graph.get(v, [])):
        if state.get(w) == 1:
            circle = stack[stack.index(w):]
            key = frozenset(circle)
            if key not in seen:
                seen.add(key)
                path = circle + [w]
                steps = [f"src/{x} -> src/{y} ({edges[(x, y)]})" for x, y in zip(path, path[1:])]
                errors.append("cycle: " + "; ".join(steps))
        elif w not in state:
            visit(w)
    stack.pop()
    state[v] = 2
sys.setrecursionlimit(10000)
for v in sorted(graph):
    if v not in state:
        visit(v)

for e in errors:
    print("layers: " + e)
n_files = len(files)
if errors:
    print(f"layers: {len(errors)} problem(s) in {n_files} files (docs/ARCHITECTURE.md)")
    sys.exit(1)
print(f"layers: {n_files} files, {len(edges)} arrows, all pointing down, no cycle")
EOF

# Outside src/: the folders of the programs and libraries on the public API.
targets=$build/CMakeFiles/TargetDirectories.txt
[ -f "$targets" ] || { echo "layers: no $targets (a Makefile build of the tree)" >&2; exit 2; }
outside_rc=0
python3 - "$build" <<'EOF' || outside_rc=$?
import os, pathlib, re, shlex, subprocess, sys

# Each folder, and the folders its files may use (#include, or a symbol one
# of them defines) besides its own and include/.  Top to bottom: a folder
# uses only folders listed after it.  A library's headers are included by
# name (its folder is on its users' include path); the other folders'
# by their path from their program's folder (tools/, bench/, redis/).
OUTSIDE = {
    # the `cuckoo` command
    "tools/commands": ["tools/redis_io", "tools/files", "tools/cli", "experiment", "cli_base",
                       "redis/dump"],
    "tools/redis_io": ["tools/files", "tools/cli", "cli_base", "redis/dump"],
    "tools/files": ["tools/cli", "cli_base", "redis/dump"],
    "tools/cli": ["cli_base"],
    "experiment": ["cli_base"],  # library cuckoo_report: `cuckoo report`
    "cli_base": [],  # library cuckoo_cli_base: exit codes, messages, numbers
    # the Redis module, cuckoo.so
    "redis/module": ["redis/rdb", "redis/key", "redis/server", "redis/dump"],
    "redis/rdb": ["redis/key", "redis/server", "redis/dump"],
    "redis/key": ["redis/server", "redis/dump"],
    "redis/server": [],
    "redis/dump": [],  # library cuckoo_redis_dump (the CLI links it too)
    # the benchmarks
    "bench/field": [],  # a wrapper for fastfilter_cpp's harness, built by bench/field/run.sh
    "bench/measure": ["bench/reference", "bench/common"],
    "bench/ab": ["bench/common"],
    "bench/simulations": ["bench/common"],
    "bench/reference": ["bench/common"],
    "bench/common": [],
}
LIBRARIES = ["experiment", "cli_base", "redis/dump"]

build = pathlib.Path(sys.argv[1]).resolve()
top = pathlib.Path(".").resolve()
errors = []
folder = lambda f: f.rsplit("/", 1)[0]
order = list(OUTSIDE)
for a, used in OUTSIDE.items():
    for b in used:
        if b not in OUTSIDE or order.index(b) <= order.index(a):
            errors.append(f"table: {a}/ may use {b}/, which is not a folder below it")

roots = sorted({f.split("/")[0] for f in OUTSIDE})
files = sorted(str(p.relative_to(top)) for r in roots for p in (top / r).rglob("*.[ch]")
               if "node_modules" not in p.parts and "tests" not in p.relative_to(top).parts)
for f in files:
    if folder(f) not in OUTSIDE:
        errors.append(f"{f}: in no folder of the table (scripts/layers.sh, OUTSIDE)")
for d in OUTSIDE:
    if not (top / d).is_dir():
        errors.append(f"table: {d}/ does not exist")
by_name = {}
for f in files:
    name = f.split("/")[-1]
    if name in by_name:
        errors.append(f"{f}: same name as {by_name[name]} (names are unique)")
    by_name[name] = f

edges = {}  # (from, to) -> why

# Includes: a header of the file's own program by its path from the
# program's folder, or a library's by its name.
root = lambda d: d if d in LIBRARIES else d.split("/")[0]
for f in files:
    d = folder(f)
    if d not in OUTSIDE:
        continue
    for n, line in enumerate((top / f).read_text().splitlines(), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if not m or (top / "include" / m.group(1)).is_file():  # public headers
            continue
        inc, to = m.group(1), None
        if f"{root(d)}/{inc}" in files:
            to = f"{root(d)}/{inc}"
        elif "/" not in inc:
            to = next((f"{lib}/{inc}" for lib in LIBRARIES if f"{lib}/{inc}" in files), None)
        if to is None:
            errors.append(f"{f}:{n}: includes \"{inc}\": neither a path under {root(d)}/ nor "
                          f"a library's header ({', '.join(l + '/' for l in LIBRARIES)})")
        else:
            edges.setdefault((f, to), f"#include \"{inc}\" (line {n})")

# Symbols: for each program or module of the build, every object linked into
# it (archives opened), and which source each object was compiled from.
obj_src, archives, units = {}, {}, {}
for t in (build / "CMakeFiles" / "TargetDirectories.txt").read_text().split():
    t = pathlib.Path(t)
    dep = t / "DependInfo.cmake"
    if dep.is_file():
        for m in re.finditer(r'^\s*"([^"]+)" "([^"]+\.o)"', dep.read_text(), re.M):
            obj_src[os.path.normpath(build / m.group(2))] = m.group(1)
    link = t / "link.txt"
    if not link.is_file():
        continue
    cwd = t.parent.parent  # links run in the target's binary directory
    words = shlex.split(link.read_text().splitlines()[0])
    ins = [os.path.normpath(cwd / w) for w in words if w.endswith((".o", ".a"))]
    if os.path.basename(words[0]) in ("ar", "llvm-ar", "gcc-ar") or words[0].endswith("-ar"):
        archives[os.path.normpath(cwd / words[2])] = ins[1:]
    elif "-o" in words:
        units[os.path.normpath(cwd / words[words.index("-o") + 1])] = ins

def source(obj):
    s = obj_src.get(obj)
    if s is None:
        return None
    s = pathlib.Path(s).resolve()
    return str(s.relative_to(top)) if top in s.parents else None

checked = set(files)
linked = {}  # unit -> its objects, for the units that hold a checked file
for unit, ins in sorted(units.items()):
    objs = [o for i in ins for o in (archives.get(i, []) if i.endswith(".a") else [i])]
    if any(source(o) in checked for o in objs):
        linked[unit] = objs
# One nm for every object: "object: [address] type symbol".
symbols = {}
wanted = sorted({o for objs in linked.values() for o in objs})
for o in wanted:
    if not os.path.isfile(o):
        print(f"layers: {o} missing (build first)", file=sys.stderr)
        sys.exit(2)
    symbols[o] = (set(), set())
out = subprocess.run(["nm", "-g", "-A"] + wanted, capture_output=True, text=True,
                     check=True).stdout if wanted else ""
for line in out.splitlines():
    o, _, rest = line.partition(":")
    w = rest.split()
    if len(w) == 2 and w[0] == "U":
        symbols[o][1].add(w[1])
    elif len(w) == 3:
        symbols[o][0].add(w[2])
nm = symbols.__getitem__

for unit, objs in linked.items():
    where = {}
    for o in objs:
        for sym in nm(o)[0]:
            where.setdefault(sym, []).append(o)
    for o in objs:
        a = source(o)
        if a not in checked:
            continue
        for sym in sorted(nm(o)[1]):
            for d in where.get(sym, []):
                b = source(d)
                if b is None or b == a:
                    continue
                if b.startswith("src/"):
                    if not re.match(r"cf_[a-z]", sym):
                        errors.append(f"{a}: uses {sym} of {b}: not the public API")
                    continue
                edges.setdefault((a, b), f"uses {sym}")

for (a, b), why in sorted(edges.items()):
    fa, fb = folder(a), folder(b)
    if fa != fb and fa in OUTSIDE and fb not in OUTSIDE.get(fa, []):
        errors.append(f"{a} -> {b}: {fa}/ may not use {fb}/ ({why})")

# Cycles between files: depth-first search, each circle reported once.
graph = {}
for (a, b) in edges:
    graph.setdefault(a, []).append(b)
state, stack, seen = {}, [], set()
def visit(v):
    state[v] = 1
    stack.append(v)
    for w in sorted(graph.get(v, [])):
        if state.get(w) == 1:
            circle = stack[stack.index(w):]
            if frozenset(circle) not in seen:
                seen.add(frozenset(circle))
                path = circle + [w]
                errors.append("cycle: " + "; ".join(f"{x} -> {y} ({edges[(x, y)]})"
                                                    for x, y in zip(path, path[1:])))
        elif w not in state:
            visit(w)
    stack.pop()
    state[v] = 2
sys.setrecursionlimit(10000)
for v in sorted(graph):
    if v not in state:
        visit(v)

for e in errors:
    print("layers: " + e)
if errors:
    print(f"layers: {len(errors)} problem(s) outside src/ (scripts/layers.sh, OUTSIDE)")
    sys.exit(1)
print(f"layers: outside src/, {len(files)} files in {len(OUTSIDE)} folders, {len(edges)} arrows, "
      "each one the table allows, no cycle")
EOF
exit $((src_rc > outside_rc ? src_rc : outside_rc))
