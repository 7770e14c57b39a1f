"""What the two shell commands share: their options, and running a run with a progress bar."""

import sys
import time

from django.core.management.base import CommandError
from tqdm import tqdm

from config.errors import DomainError
from hits.models import Batch

from .. import services
from ..models import MiningRun


def add_arguments(parser):
    parser.add_argument("--all", action="store_true", help="Every QA pair, not only those never processed.")
    parser.add_argument("--batch", type=int, help="Only the QA pairs written in this batch.")
    parser.add_argument("--pair", type=int, action="append", default=[], help="Only this QA pair (repeatable).")
    parser.add_argument("--chunk-size", type=int, help="QA pairs per chunk (default: MINING_CHUNK_SIZE).")
    parser.add_argument(
        "--on-workers", action="store_true", help="Hand the chunks to the Celery workers and follow them."
    )


def run_job(command, *, job, options):
    """Starts a run of ``job`` as the options say, runs it (here, or on the workers) and
    shows its progress; returns the finished run."""
    scope, batch = MiningRun.Scope.NEW, None
    if options["pair"]:
        scope = MiningRun.Scope.QA_PAIRS
    elif options["batch"]:
        scope = MiningRun.Scope.BATCH
        batch = Batch.objects.filter(pk=options["batch"]).first()
        if batch is None:
            raise CommandError(f"There is no batch {options['batch']}.")
    elif options["all"]:
        scope = MiningRun.Scope.ALL
    try:
        run = services.start_run(
            job=job, scope=scope, batch=batch, qa_pair_ids=options["pair"], chunk_size=options["chunk_size"],
            enqueue=options["on_workers"],
        )  # fmt: skip
    except DomainError as error:
        raise CommandError(error.message) from None
    command.stdout.write(f"{run} started.")
    with tqdm(unit=" QA pairs", file=sys.stderr, disable=options["verbosity"] == 0) as bar:
        if options["on_workers"]:
            run = _follow(run, bar)
        else:
            run = services.plan_run(run_id=run.pk)
            bar.reset(total=run.total)
            run = services.run_in_process(run=run, on_chunk=lambda chunk: bar.update(len(chunk.qa_pair_ids)))
    command.stdout.write(
        f"{run}: {run.get_state_display().lower()}; {run.processed} of {run.total} QA pairs processed, "
        f"{run.changed} changed."
    )
    if run.state == MiningRun.State.FAILED:
        raise CommandError(run.message)
    return run


def _follow(run, bar):
    while True:
        run.refresh_from_db()
        bar.total = run.total
        bar.n = run.processed
        bar.set_postfix_str(run.get_state_display().lower())
        if run.state in (MiningRun.State.DONE, MiningRun.State.FAILED):
            return run
        time.sleep(1)
