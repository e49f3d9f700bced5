#!/usr/bin/env python3
"""socsim from Python, notebook style: run a sweep in-process and plot one metric against one grid
axis, a line per value of the other axes, to a PNG.

    PYTHONPATH=build/python python3 scripts/plot_sweep.py workloads/sweeps/tcm-x-npu-freq.yaml \\
        --x npu.tcm --y ttft_ms --png tcm.png

(`cmake --install build --component python` puts the module where python3 finds it without
PYTHONPATH.) Needs Debian's python3-pandas and python3-matplotlib.
"""
import argparse

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import pandas  # noqa: E402

import socsim  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("spec", help="sweep spec file or id")
    p.add_argument("--x", required=True, help="grid axis for the x axis, e.g. npu.tcm")
    p.add_argument("--y", required=True, help="metric, e.g. ttft_ms")
    p.add_argument("--png", required=True, help="output image")
    p.add_argument("--jobs", type=int, default=2)
    a = p.parse_args()

    df = pandas.DataFrame(socsim.sweep(a.spec, jobs=a.jobs))
    for col in (a.x, a.y):
        if col not in df.columns:
            raise SystemExit(f"plot_sweep.py: '{col}' is not a column of the sweep: {', '.join(df.columns)}")
    df = df[df["error"].isna()]
    others = [c for c in df.columns if c not in ("run", "error", a.x) and not pandas.api.types.is_float_dtype(df[c])
              and df[c].nunique() > 1]
    fig, ax = plt.subplots(figsize=(6, 4))
    groups = df.groupby(others if len(others) > 1 else others[0]) if others else [("all", df)]
    for key, g in groups:
        ax.plot(g[a.x].astype(str), g[a.y], marker="o", label=str(key))
    ax.set_xlabel(a.x)
    ax.set_ylabel(a.y)
    ax.set_title(f"{a.y} against {a.x}")
    if others:
        ax.legend(title=", ".join(others), fontsize="small")
    fig.tight_layout()
    fig.savefig(a.png, dpi=100)
    print(f"wrote {a.png} ({len(df)} runs)")


if __name__ == "__main__":
    main()
