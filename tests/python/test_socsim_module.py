"""`import socsim` (sim/python/socsim_module.cpp) against the CLI: the same reports, byte for byte
as parsed; bad input raises with the CLI's message; sweep rows load into pandas; the example
plotting script writes a PNG. Run by ctest (label python) with PYTHONPATH at the built module and
SOCSIM_BIN / SOCSIM_SOURCE_DIR set."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import socsim

BIN = os.environ["SOCSIM_BIN"]
SRC = os.environ["SOCSIM_SOURCE_DIR"]

SPEC = """name: py-module-test
base:
  soc: snapdragon-8gen3
  model: qwen2-0.5b
  system: gpu-only
  decode: 2
grid:
  prompt: [32, 64]
  npu.tcm: [4MiB, 8MiB]
metrics:
  - ttft_ms
  - energy_j
"""


def cli_json(*args):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.json")
        subprocess.run([BIN, *args, "--json", out], check=True, stdout=subprocess.DEVNULL, cwd=SRC)
        with open(out) as f:
            return json.load(f)


class Module(unittest.TestCase):
    def test_run_equals_the_cli_json(self):
        py = socsim.run(soc="snapdragon-8gen3", model="qwen2-0.5b", system="hetero-layer", prompt=64, decode=4,
                        set={"npu.tcm": "16MiB", "dram.peak": "60 GB/s"})
        cli = cli_json("run", "--soc", "snapdragon-8gen3", "--model", "qwen2-0.5b", "--system", "hetero-layer",
                       "--prompt", "64", "--decode", "4", "--set", "npu.tcm=16MiB", "--set", "dram.peak=60 GB/s")
        self.assertEqual(py, cli)
        self.assertGreater(py["ttft_ms"], 0)

    def test_microbench_and_serve_equal_the_cli(self):
        py = socsim.microbench(soc="snapdragon-8gen3", op="matmul", unit="npu", dtype="int8", m=64, k=2048, n=2048)
        cli = cli_json("microbench", "--soc", "snapdragon-8gen3", "--op", "matmul", "--unit", "npu", "--dtype", "int8",
                       "--m", "64", "--k", "2048", "--n", "2048")
        self.assertEqual(py, cli)
        py = socsim.serve(soc="jetson-orin-nx", model="llama-2-7b", policy="llms", contexts=2, hours=1)
        cli = cli_json("serve", "--soc", "jetson-orin-nx", "--model", "llama-2-7b", "--policy", "llms", "--contexts", "2",
                       "--hours", "1")
        self.assertEqual(py, cli)

    def test_bad_input_raises_with_the_cli_message(self):
        with self.assertRaises(socsim.ConfigError) as e:
            socsim.run(soc="snapdragon-8gen3", model="qwen2-0.5b", system="gpu-only", prompt=64, decode=2,
                       set={"npu.tcmm": "1MiB"})
        self.assertIn("npu.tcmm", str(e.exception))
        self.assertIn("did you mean 'tcm'", str(e.exception))
        self.assertIsInstance(e.exception, ValueError)
        # set= in a form socsim cannot read: None was passed on as the text "None", bytes as
        # the numbers of their characters ("got 110").
        for bad, expect in (({"npu.tcm": None}, "set['npu.tcm'] is None"), (b"npu.tcm=1MiB", "got b'npu.tcm=1MiB'"),
                            (["npu.tcm=1MiB", 5], "got an entry 5"), ({1: "2"}, "a key of the dict is 1"), (7, "got 7")):
            with self.assertRaises(socsim.ConfigError) as e:
                socsim.run(soc="snapdragon-8gen3", model="qwen2-0.5b", system="gpu-only", prompt=64, decode=2, set=bad)
            self.assertIn(expect, str(e.exception))
        with self.assertRaises(socsim.ConfigError):
            socsim.run(soc="snapdragon-8gen3", model="qwen2-0.5b", system="no-such-system", prompt=64, decode=2)
        with self.assertRaises(socsim.ConfigError):
            socsim.run(soc="snapdragon-8gen3", model="qwen2-0.5b", system="gpu-only", prompt=-5, decode=2)
        with self.assertRaises(socsim.ConfigError):
            socsim.run(soc="snapdragon-8gen3", model="qwen2-0.5b", system="gpu-only", prompt=64, decode=2, no_such_option=1)
        # A bool for an option that takes a value: batch=False was dropped (batch 1), prompt=True
        # took the next option's value as its own.
        for kwargs in ({"batch": False}, {"prompt": True}):
            args = dict(soc="snapdragon-8gen3", model="qwen2-0.5b", system="gpu-only", prompt=64, decode=2)
            args.update(kwargs)
            with self.assertRaises(socsim.ConfigError) as e:
                socsim.run(**args)
            name = next(iter(kwargs))
            self.assertIn(f"{name}: takes a value, not {kwargs[name]}", str(e.exception))
        # A switch given a string: dry_run="no" is true to Python and became `--dry-run no`.
        with self.assertRaises(socsim.ConfigError) as e:
            socsim.sweep("no-such-spec.yaml", dry_run="no")
        self.assertIn("dry_run: is a switch: expected True or False, got 'no'", str(e.exception))
        with self.assertRaises(socsim.ConfigError) as e:
            socsim.sweep("no-such-spec.yaml", out=True)
        self.assertIn("out: expected a folder's path, not a bool", str(e.exception))
        # A NUL cut a valid id short in the message ("unknown id 'snapdragon-8gen3").
        with self.assertRaises(socsim.ConfigError) as e:
            socsim.run(soc="snapdragon-8gen3\x00", model="qwen2-0.5b", system="gpu-only", prompt=64, decode=2)
        self.assertIn("soc: holds a NUL character", str(e.exception))

    def test_sweep_rows_match_results_json_and_load_into_pandas(self):
        with tempfile.TemporaryDirectory() as d:
            spec = os.path.join(d, "spec.yaml")
            with open(spec, "w") as f:
                f.write(SPEC)
            out = os.path.join(d, "out")
            rows = socsim.sweep(spec, jobs=2, out=out)
            with open(os.path.join(out, "results.json")) as f:
                results = json.load(f)
            self.assertTrue(os.path.exists(os.path.join(out, "results.csv")))
            # The same sweep from the CLI gives the same metrics.
            cli_out = os.path.join(d, "cli")
            subprocess.run([BIN, "sweep", "--spec", spec, "--jobs", "1", "--out", cli_out], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(os.path.join(cli_out, "results.json")) as f:
                cli = json.load(f)
            self.assertEqual(results["runs"], cli["runs"])
            self.assertEqual(len(rows), 4)
            for row, run in zip(rows, results["runs"]):
                self.assertEqual(row["run"], run["run"])
                self.assertEqual(row["ttft_ms"], run["metrics"]["ttft_ms"])
                self.assertEqual(str(row["prompt"]), run["keys"]["prompt"])
                self.assertIsNone(row["error"])
            self.assertIsInstance(rows[0]["prompt"], int)
            # Without out=, a temporary folder that is removed afterwards.
            self.assertEqual(socsim.sweep(spec, jobs=1), rows)
        try:
            import pandas
        except ImportError:
            self.skipTest("pandas not installed (python3-pandas)")
        df = pandas.DataFrame(rows)
        self.assertEqual(list(df["prompt"]), [32, 32, 64, 64] if rows[0]["prompt"] == 32 else list(df["prompt"]))
        self.assertEqual(df["ttft_ms"].dtype.kind, "f")

    def test_bad_sweep_spec_raises(self):
        with tempfile.TemporaryDirectory() as d:
            spec = os.path.join(d, "bad.yaml")
            with open(spec, "w") as f:
                f.write(SPEC.replace("ttft_ms", "no_such_metric"))
            with self.assertRaises(socsim.ConfigError) as e:
                socsim.sweep(spec, out=os.path.join(d, "o"))
            self.assertIn("no_such_metric", str(e.exception))

    def test_options_a_function_would_ignore_raise(self):
        # The CLI's output options: the functions return their reports instead of writing files.
        with tempfile.TemporaryDirectory() as d:
            for fn, kw in ((socsim.run, dict(soc="snapdragon-8gen3", model="qwen2-0.5b", system="cpu-only", prompt=8, decode=1)),
                           (socsim.serve, dict(soc="jetson-orin-nx", model="llama-2-7b", policy="lmk", contexts=2, hours=1))):
                for key in ("json", "report_dir"):
                    with self.assertRaises(socsim.ConfigError) as e:
                        fn(**kw, **{key: os.path.join(d, "x")})
                    self.assertIn("returns the report instead of writing files", str(e.exception))
            self.assertEqual(os.listdir(d), [])
        # A sweep into its temporary folder: reports and a resume would be for nothing.
        with tempfile.TemporaryDirectory() as d:
            spec = os.path.join(d, "spec.yaml")
            with open(spec, "w") as f:
                f.write(SPEC)
            for key, value in (("resume", True), ("reports", True), ("report_dir", os.path.join(d, "r"))):
                with self.assertRaises(socsim.ConfigError) as e:
                    socsim.sweep(spec, **{key: value})
                self.assertIn("needs out=", str(e.exception))
            # --dry-run lists the runs and returns None (it had raised socsim.Error: no results.json).
            self.assertIsNone(socsim.sweep(spec, dry_run=True))
        # A str with no UTF-8 form is bad input, not pybind11's internal "Unable to cast".
        with self.assertRaises(socsim.ConfigError) as e:
            socsim.run(soc="\udcff", model="qwen2-0.5b", system="cpu-only", prompt=8, decode=1)
        self.assertIn("not text socsim can read", str(e.exception))

    def test_ctrl_c_interrupts_a_running_simulation(self):
        # Python sees SIGINT only when it holds the interpreter, which a simulation releases: the
        # simulation's periodic checks hand it over (the functional forward's layers here).
        import signal
        import threading
        import time
        timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
        start = time.monotonic()
        timer.start()
        try:
            with self.assertRaises(KeyboardInterrupt):
                socsim.run(soc="snapdragon-8gen3", model="qwen2-1.5b", system="llm-npu", prompt=2048, decode=16,
                           mode="functional")
        finally:
            timer.cancel()
        self.assertLess(time.monotonic() - start, 30.0)  # the whole run takes minutes on two cores
        # The module is usable afterwards.
        r = socsim.run(soc="snapdragon-8gen3", model="qwen2-0.5b", system="cpu-only", prompt=8, decode=1)
        self.assertGreater(r["ttft_ms"], 0)

    def test_example_script_plots_a_png(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("matplotlib not installed (python3-matplotlib)")
        with tempfile.TemporaryDirectory() as d:
            spec = os.path.join(d, "spec.yaml")
            with open(spec, "w") as f:
                f.write(SPEC)
            png = os.path.join(d, "plot.png")
            subprocess.run([sys.executable, os.path.join(SRC, "scripts", "plot_sweep.py"), spec, "--x", "prompt",
                            "--y", "ttft_ms", "--png", png], check=True, stdout=subprocess.DEVNULL)
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    unittest.main(verbosity=2)
