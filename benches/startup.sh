#!/usr/bin/env bash
# What the system's fonts cost a CLI process: (a) the start of `labelpress
# check examples/label.json` (runtime config, font index, validation, no
# render) with --no-system-fonts and with the system's fonts scanned, each
# STARTUP_RUNS times, alternating, after one unmeasured run each: median wall
# time and peak RSS, and the ratio system/embedded; (b) the peak RSS of
# `labelpress render` of examples/label.json against the same label with a
# CJK recipient line, both with the system's fonts (the Latin label also with
# --no-system-fonts for reference), alternating, STARTUP_RSS_RUNS each: the
# CJK faces are mapped only when a text needs them; (c) the binary's size.
# With BEFORE=<older binary> every measurement is also made with it, in
# alternating order within each round, and after/before ratios are printed.
#
# Usage: benches/startup.sh [BINARY]   (default: this tree's dev build, built first)
#        BEFORE=/path/to/older/labelpress benches/startup.sh
#        (STARTUP_RUNS, default 20, and STARTUP_RSS_RUNS, default 5, override)
# Needs the fonts the fallback list names (Debian's fonts-noto-core and
# fonts-noto-cjk) for the figures to mean anything.
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/common.sh

RUNS=${STARTUP_RUNS:-20}
RSS_RUNS=${STARTUP_RSS_RUNS:-5}
TARGET=${CARGO_TARGET_DIR:-target}
if [ $# -ge 1 ]; then
    AFTER=$1
else
    cargo build --profile dev --bin labelpress 2>&1 | tail -1
    AFTER=$TARGET/debug/labelpress
fi

make_workdir

# The LABEL with its recipient's name line in Japanese (as benches/render.rs's
# label_scripts does).
python3 - examples/label.json "$WORK/cjk.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for e in doc["pages"][0]["elements"]:
    if e["type"] == "text" and e.get("y") == 29:
        rest = e["content"].split("\n", 1)
        e["content"] = "\n".join(["東京都千代田区千代田1-1 山田太郎"] + rest[1:])
json.dump(doc, open(sys.argv[2], "w"), ensure_ascii=False)
PY

echo "cores: $(nproc); $RUNS starts and $RSS_RUNS renders per binary and variant, alternating"
python3 - "$WORK" "$RUNS" "$RSS_RUNS" "$AFTER" ${BEFORE:+"$BEFORE"} <<'PY'
import os, statistics, subprocess, sys, time

work, runs, rss_runs, after = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
binaries = [("after", after)] + ([("before", sys.argv[5])] if len(sys.argv) > 5 else [])

def run(argv):
    """Wall time (s) and peak RSS (KiB) of one process; output discarded."""
    with open(os.path.join(work, "stderr"), "w+b") as err:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            err.seek(0)
            message = err.read().decode(errors="replace").strip()[:500]
            sys.exit(f"{' '.join(argv)} failed ({child.returncode}): {message}")
    return elapsed, usage.ru_maxrss

def alternate(variants, rounds):
    """Runs every (key, argv) once per round, in reverse order every other
    round, after one unmeasured run each; returns {key: [(s, KiB), ...]}."""
    for _, argv in variants:
        run(argv)
    results = {key: [] for key, _ in variants}
    for i in range(rounds):
        for key, argv in (variants if i % 2 == 0 else variants[::-1]):
            results[key].append(run(argv))
    return results

def median(values):
    return statistics.median(values)

label = "examples/label.json"
cjk = os.path.join(work, "cjk.json")
pdf = os.path.join(work, "out.pdf")

print("\n(a) start: labelpress check examples/label.json")
starts = alternate(
    [((name, mode), [binary, "check"] + (["--no-system-fonts"] if mode == "embedded" else []) + [label])
     for name, binary in binaries for mode in ("embedded", "system")],
    runs)
for name, _ in binaries:
    ms = {mode: median([s for s, _ in starts[(name, mode)]]) * 1000 for mode in ("embedded", "system")}
    kib = {mode: median([k for _, k in starts[(name, mode)]]) for mode in ("embedded", "system")}
    for mode in ("embedded", "system"):
        spread = sorted(s * 1000 for s, _ in starts[(name, mode)])
        print(f"{name:>6} {mode:>8}: median {ms[mode]:6.1f} ms (min {spread[0]:.1f}, max {spread[-1]:.1f}), peak RSS {kib[mode] / 1024:6.1f} MiB")
    print(f"{name:>6} system/embedded: time {ms['system'] / ms['embedded']:.2f}, RSS {kib['system'] / kib['embedded']:.2f}")
if len(binaries) > 1:
    for mode in ("embedded", "system"):
        a = median([s for s, _ in starts[("after", mode)]])
        b = median([s for s, _ in starts[("before", mode)]])
        print(f"{mode} start after/before: {a / b:.3f}")

print("\n(b) peak RSS of one render: labelpress render -o out.pdf")
variants = [
    ("latin, --no-system-fonts", ["--no-system-fonts", label]),
    ("latin, system fonts", [label]),
    ("CJK recipient, system fonts", [cjk]),
]
renders = alternate(
    [((name, v), [binary, "render", "-o", pdf] + args) for name, binary in binaries for v, args in variants],
    rss_runs)
for name, _ in binaries:
    kib = {v: median([k for _, k in renders[(name, v)]]) for v, _ in variants}
    for v, _ in variants:
        ms = median([s for s, _ in renders[(name, v)]]) * 1000
        print(f"{name:>6} {v:>28}: peak RSS {kib[v] / 1024:6.1f} MiB, median {ms:6.1f} ms")
    print(f"{name:>6} CJK/latin (system fonts): RSS {kib['CJK recipient, system fonts'] / kib['latin, system fonts']:.2f}"
          f", {(kib['CJK recipient, system fonts'] - kib['latin, system fonts']) / 1024:+.1f} MiB")

print("\n(c) binary size")
for name, binary in binaries:
    print(f"{name:>6}: {os.path.getsize(binary):,} bytes")
if len(binaries) > 1:
    print(f"after/before: {os.path.getsize(after) / os.path.getsize(sys.argv[5]):.3f}")
PY
