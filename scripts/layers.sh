#!/usr/bin/env bash
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
# usage: scripts/layers.sh [BUILD_DIR]     (default build/test-gcc; built first)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/test-gcc}
objdir=$build/CMakeFiles/cuckoofilter_objects.dir/src
[ -d "$objdir" ] || { echo "layers: no objects in $objdir (build first)" >&2; exit 2; }
command -v nm >/dev/null || { echo "layers: nm not found (Debian: binutils)" >&2; exit 2; }

# One line per object: "O <file>", then "D <symbol>" for each global symbol it
# defines and "U <symbol>" for each it needs.
symbols=$(
  while IFS= read -r src; do
    obj=$objdir/$src.o
    [ -f "$obj" ] || { echo "layers: $obj missing (build first)" >&2; exit 2; }
    echo "O $src"
    nm -g "$obj" | awk '$1 == "U" { print "U " $2; next } NF == 3 { print "D " $3 }'
  done < <(grep -v '^#' src/sources.txt | sed '/^$/d')
)

python3 - "$symbols" <<'EOF'
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
