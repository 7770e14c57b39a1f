"""Scoring benchmark: wall time and peak memory of scoring 10k WebQA, 10k WebQuest and 2k
WebVLN predictions, the way an evaluation run does (the predictions file read and checked
against the gold, then scored).

    .venv/bin/python bench/scoring.py [--runs 5] [--scale 1.0]

Each family is scored in a fresh child process, ``--runs`` times; the script prints every
run and the median, with the load average at the start. The data is synthetic but shaped
like a release's: WebQA keyword answers across the seven categories with answers of a
dozen words and two to six sources, WebQuest prices, counts and names with their rule
variants, WebVLN paths of three to eight pages on fifty sites. No database is needed.
"""

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]

SIZES = {"webqa": 10_000, "webquest": 10_000, "webvln": 2_000}
WORDS = [
    "the",
    "red",
    "house",
    "stands",
    "near",
    "a",
    "round",
    "lake",
    "with",
    "three",
    "old",
    "boats",
    "and",
    "two",
    "blue",
    "doors",
]
COLORS = ["red", "blue", "white", "green", "black", "yellow"]
SHAPES = ["round", "square", "triangle", "oval"]


def _webqa(rng, size):
    categories = ["color", "shape", "number", "YesNo", "choose", "Others", "text"]
    gold, predictions = {}, {}
    for n in range(size):
        category = categories[n % len(categories)]
        keyword = {
            "color": rng.choice(COLORS), "shape": rng.choice(SHAPES), "number": str(rng.randint(1, 40)),
            "YesNo": rng.choice(["yes", "no"]),
        }.get(category, " ".join(rng.sample(WORDS, 3)))  # fmt: skip
        sources = [30_000_000 + rng.randint(0, 9999) for _ in range(rng.randint(1, 2))] + [
            f"g{n}_{k}" for k in range(rng.randint(1, 4))
        ]
        guid = f"g{n:031d}"
        gold[guid] = {"category": category, "keyword_answer": keyword, "answers": [f"It is {keyword}."],
                      "sources": sources}  # fmt: skip
        answer = " ".join(rng.sample(WORDS, 10)) + " " + (keyword if rng.random() < 0.6 else rng.choice(COLORS))
        predictions[guid] = {"answer": answer, "sources": sources[: rng.randint(0, len(sources))]}
    return gold, json.dumps(predictions).encode(), {}


def _webquest(rng, size):
    from releases.scoring.webquest import answer_variants

    gold, predictions = {}, {}
    for n in range(size):
        kind = rng.choice(["single", "multi", "trace"])
        shape = n % 3
        if shape == 0:
            answer, answer_type = f"${rng.randint(1, 3000):,}.{rng.randint(0, 99):02d}", "decimal"
        elif shape == 1:
            answer, answer_type = str(rng.randint(1, 60)), "integer"
        else:
            answer, answer_type = " ".join(rng.sample(WORDS, 2)), "text"
        gold[f"q{n}"] = {"answers": answer_variants(answer), "answer_type": answer_type, "kind": kind,
                         "reasoning_types": rng.sample(["arithmetic", "comparison", "counting", "filtering"], 2)}  # fmt: skip
        predictions[f"q{n}"] = f"The answer is {answer}" if rng.random() < 0.5 else "I think it is 12 dollars"
    return gold, json.dumps(predictions).encode(), {}


def _webvln(rng, size):
    gold, predictions = {}, []
    for n in range(size):
        site = f"{n % 50}"
        path = [f"{site}_{k}" for k in range(rng.randint(3, 8))]
        answer = " ".join(rng.sample(WORDS, 3))
        gold[str(n)] = {"path": path, "answer": answer}
        trajectory = path if rng.random() < 0.5 else path[:-1] + [f"{site}_99", path[-1]]
        predictions.append({"idx": n, "trajectory": trajectory, "answer": answer if rng.random() < 0.7 else "no"})
    return gold, json.dumps(predictions).encode(), {"shortest_paths": {}}


def child(family, scale):
    from releases import evaluation

    rng = random.Random(7)
    gold, raw, context = {"webqa": _webqa, "webquest": _webquest, "webvln": _webvln}[family](
        rng, int(SIZES[family] * scale)
    )
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    predictions = evaluation.read_predictions(family=family, raw=raw, gold=gold)
    checked = time.perf_counter()
    report = evaluation.SCORERS[family].score(gold, predictions, **context)
    done = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"family": family, "items": len(gold), "read_s": checked - started, "score_s": done - checked,
                      "total_s": done - started, "peak_rss_mb": peak / 1024, "rss_before_mb": before / 1024,
                      "metrics": report["metrics"]}))  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        os.environ.setdefault("DEBUG", "1")
        import django

        django.setup()
        return child(args.child, args.scale)
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    for family in ("webqa", "webquest", "webvln"):
        runs = []
        for _ in range(args.runs):
            load = os.getloadavg()[0]
            output = subprocess.run(
                [sys.executable, __file__, "--child", family, "--scale", str(args.scale)],
                capture_output=True, text=True, check=True, cwd=ROOT,
            ).stdout  # fmt: skip
            run = json.loads(output.strip().splitlines()[-1])
            runs.append(run)
            print(f"  {family:<8} {run['items']:>6} items  read {run['read_s']:.3f} s  score {run['score_s']:.3f} s  "
                  f"total {run['total_s']:.3f} s  peak RSS {run['peak_rss_mb']:.0f} MB "
                  f"({run['rss_before_mb']:.0f} MB with data, before scoring)  (load {load:.2f})")  # fmt: skip
        print(f"{family}: median total {statistics.median(r['total_s'] for r in runs):.3f} s, "
              f"median peak RSS {statistics.median(r['peak_rss_mb'] for r in runs):.0f} MB over {len(runs)} runs; "
              f"metrics {runs[0]['metrics']}")  # fmt: skip


if __name__ == "__main__":
    main()
