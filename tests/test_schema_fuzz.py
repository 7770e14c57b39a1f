"""The API keeps its schema's word: schemathesis sends each operation of
``/api/v1/schema/`` requests the schema allows and requests it does not, as each role,
to a real server, and the test fails on any 5xx, any status code the operation does not
document, and any body that does not match the schema of its status code.

The server is gunicorn on the test database (``transaction=True``: it sees what the test
commits); the jobs it starts go to a queue that no worker reads. The world is seeded with
one or two of most things (an open batch with an open and a submitted assignment, screens,
a recorded trace, QA pairs with and without a category, pool images and snippets, a
published release, a mining run); half the time schemathesis tries their ids for an
``{id}``, so requests reach existing resources as well as missing ones. The roles run one
after another, rater first and admin last, so that reviewers blocking workers and admins
closing batches cannot starve the runs before theirs; the seed is fixed. No operation is
left out: the release file download streams bytes, which schemathesis does not read, but
its statuses (200, 302, the errors) are checked like any other's.

``SCHEMA_FUZZ_EXAMPLES=200 SCHEMA_FUZZ_SEED=7 pytest tests/test_schema_fuzz.py`` fuzzes
deeper, or elsewhere, than CI does.
"""

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.db import connection

from accounts import services as accounts
from accounts.models import Role
from collection.models import PoolImport
from config.celery import app as celery_app
from corpus.models import Trace
from hits import services as work
from mining import services as mining
from releases import build
from releases.models import Release
from releases.tests import data
from releases.tests.helpers import release
from tests.factories import GOOD_ANSWER, UserFactory, make_category, open_batch
from validation.default_tests import install as install_default_tests
from validation.tests.factories import written_pair

ROOT = Path(__file__).resolve().parent.parent
SEED = int(os.environ.get("SCHEMA_FUZZ_SEED", "20261130"))
# Test cases per operation and phase; the coverage phase adds its own boundary cases.
EXAMPLES = int(os.environ.get("SCHEMA_FUZZ_EXAMPLES", "6"))
# Roles in the order they run, each with its phases. The coverage phase (every boundary and
# wrong type of every field: some three thousand requests) runs as the admin, whom no role
# check stops before the validation; every role gets the random fuzzing phase, where
# what each may see and do differs.
ROLES = {
    Role.RATER: "examples,fuzzing,stateful",
    Role.VALIDATOR: "examples,fuzzing,stateful",
    Role.REVIEWER: "examples,fuzzing,stateful",
    Role.ADMIN: "examples,coverage,fuzzing,stateful",
}
CHECKS = "not_a_server_error,status_code_conformance,response_schema_conformance"

# Where the server's jobs go: no worker reads it, and it is emptied after the test.
JOB_QUEUE = "schema-fuzz"

pytestmark = pytest.mark.django_db(transaction=True)


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def api_server(transactional_db, media, tmp_path):
    """gunicorn serving the test database and ``media``; yields the process, with its
    ``url`` and ``log``."""
    db = connection.settings_dict
    if connection.vendor != "postgresql":
        pytest.skip("a server in another process needs a shared database server (PostgreSQL)")
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "MEDIA_ROOT": str(media),
        "TRAILMARK_VAR_DIR": str(tmp_path / "var"),
        "POOL_IMPORT_ROOT": str(tmp_path / "imports"),
        # Jobs are queued where no worker takes them: the API is under test, not the jobs.
        "CELERY_QUEUE": JOB_QUEUE,
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_WORKERS": "2",
        "GUNICORN_THREADS": "4",
    }
    for name in ("S3_BUCKET", "RELEASE_QUEUE"):  # local files (the media fixture); jobs to CELERY_QUEUE
        env.pop(name, None)
    log = (tmp_path / "gunicorn.log").open("w")
    # Without a control socket: the default one is shared by every gunicorn of the machine.
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "--no-control-socket", "config.wsgi"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/v1/schema/", timeout=5) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass  # not up yet, or the first schema still being built on a busy machine
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("gunicorn did not start:\n" + (tmp_path / "gunicorn.log").read_text())
            time.sleep(0.2)
        server.log = tmp_path / "gunicorn.log"
        server.url = url
        yield server
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        if settings.CELERY_BROKER_URL:
            with celery_app.connection_for_write() as broker:
                broker.default_channel.queue_purge(JOB_QUEUE)


def seed_world():
    """One user of each role with an API token, and a little of everything they work on.
    Returns ``(tokens, spare_tokens, ids, slugs, files)``: each role's token and key, a
    token of each role's for the token-deletion operation to revoke (never the one the run
    uses), the ids of what was made, the slugs of categories and qualification tests and
    some files of the published release."""
    install_default_tests(apps)
    users = {role: UserFactory(role=role) for role in ROLES}
    tokens, spare_tokens = {}, {}
    for role, user in users.items():
        tokens[role] = accounts.create_api_token(user=user, name="schema fuzz")
        spare_tokens[role] = accounts.create_api_token(user=user, name="spare")[0].pk
    rater, validator, admin = users[Role.RATER], users[Role.VALIDATOR], users[Role.ADMIN]
    categories = [make_category(slug) for slug in ("shopping", "travel")]

    batch = open_batch(tasks=4, wanted=2)
    open_assignment, _ = work.request_next_task(worker=rater, batch_id=batch.pk)
    taken, _ = work.request_next_task(worker=validator, batch_id=batch.pk)
    submitted = work.submit_assignment(assignment_id=taken.pk, worker=validator, data=GOOD_ANSWER)

    spare_screen = data.screen(rater)  # no question or trace uses it; no category either
    recorded, steps = data.trace(rater, ["/", "/kettles", "/kettles/blue"])
    Trace.objects.filter(pk=recorded.pk).update(state=Trace.State.UPLOADING)
    pairs = [
        data.screen_pair(rater),
        data.pair(rater, split_kind="single_screen", state="pending_validation"),  # no category
        data.trace_pair(rater, recorded, steps),
        data.webqa_image_pair(rater),
        data.webqa_text_pair(rater),
        written_pair(author=rater),  # pending, with a validation task
    ]
    # Built here: start_build would also queue the build for any worker the suite runs.
    published = release(admin)
    Release.objects.filter(pk=published.pk).update(state=Release.State.QUEUED, attempt=1)
    build.run_build(release_id=published.pk, attempt=1)
    run = mining.start_run(job="mine", scope="all", created_by=admin, enqueue=False)
    pool_import = PoolImport.objects.create(kind=PoolImport.Kind.IMAGES, source="manifest.jsonl", created_by=admin)

    ids = {
        *(user.pk for user in users.values()),
        batch.pk,
        open_assignment.pk,
        submitted.pk,
        spare_screen.pk,
        spare_screen.asset_id,
        recorded.pk,
        *(step.screen_id for step in steps),
        *(pair.pk for pair in pairs),
        published.pk,
        run.pk,
        pool_import.pk,
    }
    slugs = [category.slug for category in categories] + ["screen-questions", "image-questions"]
    files = sorted(published.files.values_list("path", flat=True))[:5]
    return tokens, spare_tokens, sorted(ids), slugs, files


def fuzz_config(*, spare_token, ids, slugs, files):
    """schemathesis.toml for one role's run: no state kept between runs (each is decided
    by the seed alone), the seeded ids and slugs tried half the time wherever a path,
    query or body names a resource, and token deletion pointed at the role's spare token
    so that the run never revokes its own."""
    id_list = ", ".join(str(pk) for pk in ids)
    slug_list = ", ".join(f'"{slug}"' for slug in slugs)
    file_list = ", ".join(f'"{path}"' for path in files)
    return f"""
[cache]
enabled = false

[generation]
database = "none"

[dictionaries.ids]
values = [{id_list}]

[dictionaries.slugs]
values = [{slug_list}]

[dictionaries.files]
values = [{file_list}]

[parameters]
"path.id" = {{ dictionary = "ids", probability = 0.5 }}
"path.slug" = {{ dictionary = "slugs", probability = 0.5 }}
"path.path" = {{ dictionary = "files", probability = 0.5 }}
"query.worker" = {{ dictionary = "ids", probability = 0.5 }}
"query.batch" = {{ dictionary = "ids", probability = 0.5 }}
"query.qa_pair" = {{ dictionary = "ids", probability = 0.5 }}
"query.against" = {{ dictionary = "ids", probability = 0.5 }}
"body.batch" = {{ dictionary = "ids", probability = 0.5 }}
"body.assignment" = {{ dictionary = "ids", probability = 0.5 }}
"body.parent" = {{ dictionary = "ids", probability = 0.5 }}
"body.qa_pairs[*]" = {{ dictionary = "ids", probability = 0.5 }}
"body.category" = {{ dictionary = "slugs", probability = 0.5 }}

[[operations]]
include-path = "/api/v1/tokens/{{id}}/"
include-method = "DELETE"
parameters = {{ "path.id" = {spare_token} }}
"""


def run_schemathesis(*, url, key, phases, config, workdir):
    """Runs the schemathesis command line once; returns (exit code, its report)."""
    workdir.mkdir()
    (workdir / "schemathesis.toml").write_text(config)
    command = [
        sys.executable, "-m", "schemathesis.cli", "--no-color", "--config-file", "schemathesis.toml",
        "run", f"{url}/api/v1/schema/", "--header", f"Authorization: Token {key}",
        "--checks", CHECKS, "--seed", str(SEED), "--max-examples", str(EXAMPLES),
        "--phases", phases, "--request-timeout", "30", "--output-truncate", "false",
    ]  # fmt: skip
    finished = subprocess.run(command, cwd=workdir, capture_output=True, text=True, timeout=600)
    return finished.returncode, finished.stdout + finished.stderr


def test_every_operation_keeps_its_schema_for_every_role(api_server, tmp_path):
    tokens, spare_tokens, ids, slugs, files = seed_world()
    failures = []
    for role, phases in ROLES.items():
        token, key = tokens[role]
        config = fuzz_config(spare_token=spare_tokens[role], ids=ids, slugs=slugs, files=files)
        started = time.monotonic()
        code, report = run_schemathesis(
            url=api_server.url, key=key, phases=phases, config=config, workdir=tmp_path / role
        )
        summary = [line.strip() for line in report.splitlines() if " generated, " in line]
        print(f"{role}: {summary[-1] if summary else '?'} in {time.monotonic() - started:.1f} s")
        if code != 0:
            failures.append(f"===== as {role} =====\n{report}")
        token.refresh_from_db()
        assert token.is_active, f"the {role}'s run revoked its own token: what came after it was only 401s"
    if failures:
        server_log = api_server.log.read_text()
        first_crash = server_log.find("Internal Server Error")
        crashes = "\n===== the server's errors =====\n" + server_log[first_crash:][:30000] if first_crash >= 0 else ""
        pytest.fail("\n".join(failures) + crashes)
