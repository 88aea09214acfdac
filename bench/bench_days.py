"""Which dates are dear: the generator's CPU seconds for every slot of each date, in process, one core.

    python bench/bench_days.py [--start 2027-01-01] [--days 30]

Each slot of config/starbattle.yaml is generated with the seed a daily run derives for the date (flows.policy,
first attempt), its candidate budget and the config's settings, one after the other. A date's sum is the work its
daily run shares among the workers; its dearest slot is the part that one worker alone can shorten only so far. The
candidates tried do not depend on the machine, so the dear dates found here are the dates to measure as a user runs
them (`bench_pipeline.py --cases running --start DATE-2`, whose nightly case runs on the second date after --start).
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_hint import percentile  # noqa: E402

from flows.policy import derive_seed  # noqa: E402
from flows.settings import load_settings  # noqa: E402
from starbattle_core.generator import generate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--start", type=dt.date.fromisoformat, default=dt.date(2027, 1, 1), help="the first date")
    parser.add_argument("--days", type=int, default=30, help="dates measured (default 30)")
    args = parser.parse_args()
    settings = load_settings()
    pipeline = settings.pipeline
    sums, dearest = [], []
    for offset in range(args.days):
        date = args.start + dt.timedelta(days=offset)
        parts = []
        for chosen in pipeline.slots:
            config = settings.generator.model_copy(update={"max_candidates": pipeline.slot_candidates(chosen)})
            seed = derive_seed(date, chosen.name, 0)
            started = time.process_time()
            made = generate(chosen.as_generator_slot(), seed, pipeline.slot_budget(chosen), config, settings.grading)
            seconds = time.process_time() - started
            missed = "" if made.board is not None else " (no board)"
            parts.append((seconds, f"{chosen.name} {made.counters.candidates}/{seconds:.1f}{missed}"))
        total = sum(seconds for seconds, _ in parts)
        top = max(parts)
        sums.append(total)
        dearest.append(top[0])
        print(f"{date}  sum {total:5.1f} s  dearest {top[1]}  |  " + ", ".join(text for _, text in parts), flush=True)
    for name, values in (("sum", sums), ("dearest slot", dearest)):
        p90 = percentile(values, 0.9)
        print(f"{name:13s} CPU s median {statistics.median(values):5.1f}  p90 {p90:5.1f}  max {max(values):5.1f}")


if __name__ == "__main__":
    main()
