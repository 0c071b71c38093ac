#!/usr/bin/env python3
"""Thread scaling of a batch, sampled many times, with its CPU cost and a control.

compare.py gives one figure for `-j 1` → `-j 2`; on a shared VM that figure
moves with the host from one minute to the next. This samples it in rounds,
each running, one after the other:

- `-j 1` over 10,000 small logs,
- two `-j 1` processes at once, over two copies of those logs (the control: what
  two busy cores cost when nothing is shared),
- `-j 2` over the logs,

and records wall time and CPU time (from wait4). It prints the medians, the
spread of the per-round `-j 1` / `-j 2` ratios, and the CPU each costs: when
`-j 2` takes more CPU than `-j 1` for the same work while the control does not,
the threads get in each other's way; when both do, the host does.

Usage: scaling.py BINARY [--rounds N] [--logs N]
(benches/compare.sh builds the binary: `cargo build --release`.)
"""
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

# compare.py's logs, so that both time the same batch; no __pycache__ is
# left in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import batch_logs, pane_capture  # noqa: E402


def arg(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def main():
    rounds, count = arg("--rounds", 25), arg("--logs", 10000)
    work = Path(tempfile.mkdtemp(prefix="faultsift-scaling-"))
    try:
        binary = str(work / "faultsift")
        shutil.copy2(sys.argv[1], binary)
        pane = pane_capture(5 << 20)
        logs, copy = work / "logs", work / "logs-copy"
        batch_logs(logs, count, pane)
        batch_logs(copy, count, pane)
        null = os.open(os.devnull, os.O_WRONLY)
        actions = [(os.POSIX_SPAWN_DUP2, null, 1)]

        def spawn(threads, directory):
            argv = [binary, "classify", "--profile", "claude", "-j", str(threads), str(directory)]
            return os.posix_spawn(binary, argv, os.environ, file_actions=actions)

        def finish(pid):
            usage = os.wait4(pid, 0)[2]
            return (usage.ru_utime + usage.ru_stime) * 1e3

        samples = {"j1": [], "pair": [], "j2": []}  # (wall ms, CPU ms per process)
        for _ in range(rounds + 1):
            t = time.perf_counter()
            cpu = finish(spawn(1, logs))
            samples["j1"].append(((time.perf_counter() - t) * 1e3, cpu))
            t = time.perf_counter()
            first, second = spawn(1, logs), spawn(1, copy)
            cpu = (finish(first) + finish(second)) / 2
            samples["pair"].append(((time.perf_counter() - t) * 1e3, cpu))
            t = time.perf_counter()
            cpu = finish(spawn(2, logs))
            samples["j2"].append(((time.perf_counter() - t) * 1e3, cpu))
        # The first round warms the page cache.
        samples = {k: v[1:] for k, v in samples.items()}
        os.close(null)

        median = statistics.median
        print(f"faultsift thread scaling: {rounds} rounds over {count:,} logs (medians)")
        names = {"j1": "-j 1", "pair": "two -j 1 at once (each)", "j2": "-j 2"}
        for key, name in names.items():
            walls, cpus = zip(*samples[key])
            print(f"  {name:<26} wall {median(walls):7.1f} ms   CPU {median(cpus):7.1f} ms")
        ratios = sorted(a[0] / b[0] for a, b in zip(samples["j1"], samples["j2"]))
        met = sum(r >= 1.7 for r in ratios)
        print(f"  -> -j 1 / -j 2 per round: min {ratios[0]:.2f}, median {median(ratios):.2f}, "
              f"max {ratios[-1]:.2f}; {met} of {len(ratios)} rounds >= 1.7")
        cpu = lambda key: median(c for _, c in samples[key])
        print(f"  -> CPU for the same work: -j 2 / -j 1 = {cpu('j2') / cpu('j1'):.2f}; "
              f"control (one of two processes at once / alone) = {cpu('pair') / cpu('j1'):.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
