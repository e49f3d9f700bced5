#!/usr/bin/env bash
# Regenerates reports/performance.md: the simulator's own wall time and peak memory (timing mode)
# against prompt length, decode length, batch and model size, each series with its fitted growth
# (least-squares line: the cost per token / sequence / billion parameters, and the log-log slope
# between the two largest points: ~1 linear, ~2 quadratic). Issue #21 item 5.
#
#   scripts/performance-report.sh [--build DIR] [--quick] [--repeat N]
#
# --quick stops each series two points early (a smoke run, ~10 s); the full report takes about a
# minute on 2 cores. Runs go one at a time (they do not share the cores); wall time is measured
# around each `socsim run` process, peak memory is its own (/usr/bin/time's %M). Each point is run
# N times (default 3) and its median wall time reported: one run of a 0.02 s case on a shared host
# was once 0.27 s. The engine's event rate (`socsim bench --case engine`) and the cost of starting
# a process, measured before and after, go in the header: a slow host and a slow simulator are
# told apart.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
quick=0
repeat=3
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --quick) quick=1; shift ;;
    --repeat)
      [[ "${2:-}" =~ ^[1-9][0-9]?$ ]] || { echo "performance-report.sh: --repeat: expected a whole number from 1 to 99, got '${2:-}'" >&2; exit 2; }
      repeat="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "performance-report.sh: unknown option '$1' (expected --build DIR, --quick or --repeat N)" >&2; exit 2 ;;
  esac
done
[ -x "$build/socsim" ] || { echo "performance-report.sh: $build/socsim not found; build first (cmake --build $build)" >&2; exit 2; }

/usr/bin/python3 - "$build/socsim" "$quick" reports/performance.md "$repeat" <<'PY'
import json, math, os, platform, statistics, subprocess, sys, tempfile, time

socsim, quick, out_path, repeat = sys.argv[1], sys.argv[2] == "1", sys.argv[3], int(sys.argv[4])

def take(values):
    return values[:-2] if quick else values

def params_b(model):
    c = json.load(open(f"models/{model}.json"))
    h, L, f, v = c["hidden_size"], c["num_hidden_layers"], c["intermediate_size"], c["vocab_size"]
    kv = c.get("num_key_value_heads", c["num_attention_heads"]) * (h // c["num_attention_heads"])
    embeddings = v * h * (1 if c.get("tie_word_embeddings", False) else 2)
    return round((L * (2 * h * h + 2 * h * kv + 3 * h * f) + embeddings) / 1e9, 2)

def measure_once(system, model, prompt, decode, batch):
    with tempfile.TemporaryDirectory() as d:
        report, rss = os.path.join(d, "r.json"), os.path.join(d, "rss")
        # Through /usr/bin/time: its child is forked from a small process, so the peak resident
        # memory is socsim's own (a child forked from this Python would count Python's pages).
        args = ["/usr/bin/time", "-f", "%M", "-o", rss, socsim, "run", "--soc", "snapdragon-8gen3", "--model", model, "--system", system, "--prompt", str(prompt),
                "--decode", str(decode), "--batch", str(batch), "--json", report]
        start = time.perf_counter()
        p = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall = time.perf_counter() - start
        if p.returncode != 0:
            return {"failed": p.stderr.decode(errors="replace").strip().splitlines()[-1:]}
        kb = int(open(rss).read().split()[-1])
        return {"wall": wall, "mb": kb / 1024, "events": json.load(open(report))["events"]}

def measure(system, model, prompt, decode, batch):
    runs = []
    for _ in range(repeat):
        r = measure_once(system, model, prompt, decode, batch)
        if "failed" in r:
            return r
        runs.append(r)
    # Timing mode is deterministic: every run simulates the same events (checked).
    if len({r["events"] for r in runs}) != 1:
        sys.exit(f"performance-report.sh: {system} {model} {prompt}+{decode} x{batch}: runs gave different event counts")
    return {"wall": statistics.median(r["wall"] for r in runs), "mb": max(r["mb"] for r in runs), "events": runs[0]["events"]}

def engine_rate():
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "bench.json")
        subprocess.run([socsim, "bench", "--case", "engine", "--repeat", "3", "--json", out], check=True, stdout=subprocess.DEVNULL)
        return json.load(open(out))["engine_events_per_s"]

# (series, label, unit, systems, [(x, model, prompt, decode, batch)])
plans = [
    ("prompt", "prompt tokens", "token", ["gpu-only", "llm-npu", "hetero-tensor"],
     [(p, "qwen2-1.5b", p, 16, 1) for p in take([256, 1024, 4096, 16384, 32768])]),
    ("decode", "decode tokens", "token", ["gpu-only", "llm-npu"],
     [(d, "qwen2-1.5b", 256, d, 1) for d in take([16, 256, 1024, 4096, 16384])]),
    ("batch", "sequences", "sequence", ["gpu-only", "llm-npu"],
     [(b, "qwen2-1.5b", 256, 16, b) for b in take([1, 4, 16, 32, 64])]),
    ("model", "B parameters", "B parameters", ["gpu-only", "llm-npu"],
     [(params_b(m), m, 1024, 16, 1) for m in take(["qwen2-0.5b", "qwen2-1.5b", "llama-3.2-3b", "qwen2.5-7b", "llama-3-8b"])]),
]

def fit(points):
    pts = [(float(x), r["wall"]) for x, _, r in points if "wall" in r]
    if len(pts) < 2:
        return None
    n = len(pts)
    mx, my = sum(p[0] for p in pts) / n, sum(p[1] for p in pts) / n
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    b = sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx if sxx > 0 else 0.0
    (x1, y1), (x2, y2) = pts[-2], pts[-1]
    slope = math.log(y2 / y1) / math.log(x2 / x1) if y1 > 0 and y2 > 0 and x2 > x1 else float("nan")
    return b, slope

try:
    cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
except Exception:
    cpu = platform.processor() or "unknown CPU"
def start_cost():
    # A process that loads and exits (`socsim --version`): the fixed cost in every row below. It
    # moves with the host's kernel (exec, page faults) more than the engine's rate does.
    walls = []
    for _ in range(9):
        start = time.perf_counter()
        subprocess.run([socsim, "--version"], check=True, stdout=subprocess.DEVNULL)
        walls.append(time.perf_counter() - start)
    return statistics.median(walls)

engine_before, start_before = engine_rate(), start_cost()
lines = ["# The simulator's own speed and memory at scale", "",
         "Regenerated by `scripts/performance-report.sh`" + (" --quick (a smoke run: shorter series)" if quick else "") +
         f"; {os.cpu_count()} cores ({cpu}), Release build, one `socsim run` at a time, timing mode, snapdragon-8gen3. "
         "Wall time around each process (" + (f"the median of {repeat} runs" if repeat > 1 else "one run") + "), its own peak "
         "resident memory (/usr/bin/time" + ("; the largest of the runs" if repeat > 1 else "") + "), and the report's `events` (the main "
         "simulation's; profiling sub-simulations are not counted). Each series ends with its fitted growth: the "
         "least-squares cost per unit, and the log-log slope between its two largest points (about 1: linear; about 2: "
         "quadratic).", "",
         "Models above 8B (70B) are left out: they do not fit a phone's DRAM, and socsim refuses them before simulating "
         "(the memory-fit check)."]
for series, label, per, systems, points in plans:
    lines += ["", f"## Against {label}"]
    for system in systems:
        results = []
        for x, model, prompt, decode, batch in points:
            r = measure(system, model, prompt, decode, batch)
            results.append((x, model, r))
            shown = f"{r['wall']:.3f} s {r['mb']:.0f} MB {r['events']} events" if "wall" in r else f"failed: {r['failed']}"
            print(f"  {series:7} {system:14} {model:13} x={x:<7} {shown}", flush=True)
        model_col = series == "model"
        lines += ["", f"**{system}**" + ("" if model_col else f" ({points[0][1]})"), "",
                  f"| {label} | " + ("model | " if model_col else "") + "wall s | peak MB | events |",
                  "|---|" + ("---|" if model_col else "") + "---|---|---|"]
        for x, model, r in results:
            cells = f"{r['wall']:.3f} | {r['mb']:.0f} | {r['events']:,}" if "wall" in r else "failed | | "
            lines.append(f"| {x} | " + (f"{model} | " if model_col else "") + cells + " |")
        f = fit(results)
        if f:
            b, slope = f
            b = 0.0 if abs(b) < 5e-7 else b
            cost = f"{b * 1e6:.0f} µs" if b < 1e-2 else f"{b * 1e3:.1f} ms"
            lines += ["", f"Growth: {cost} of wall time per {per} (least squares); log-log slope {slope:.2f} between the two largest."]
engine_after, start_after = engine_rate(), start_cost()
# The host's speed while the tables were measured: compare reports by this before their wall times.
lines.insert(4, f"The bare engine (`socsim bench --case engine`) ran {engine_before / 1e6:.1f} M events/s before these runs and "
                f"{engine_after / 1e6:.1f} M after, and a process that only starts and exits (`socsim --version`, "
                f"the median of 9) took {start_before * 1e3:.1f} ms before and {start_after * 1e3:.1f} ms after. They are the host's "
                "speed at that time: compare them before comparing two reports' wall times.")
lines.insert(5, "")
tmp = out_path + ".tmp"
with open(tmp, "w") as f:
    f.write("\n".join(lines) + "\n")
os.replace(tmp, out_path)
print(f"wrote {out_path}")
PY
