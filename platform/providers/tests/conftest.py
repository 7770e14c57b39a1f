import pytest

from .fakes import fake_mturk, fake_prolific


@pytest.fixture
def prolific_api(settings):
    """A fake Prolific API that records its requests; the settings point at it."""
    fake = fake_prolific()
    settings.PROLIFIC_API_URL, settings.PROLIFIC_API_TOKEN = fake.url, "prolific-test-token"
    yield fake
    fake.close()


@pytest.fixture
def mturk_api(settings, monkeypatch):
    """A fake MTurk requester endpoint that records its requests; boto3 points at it."""
    fake = fake_mturk()
    settings.MTURK_ENDPOINT_URL = fake.url
    settings.MTURK_ACCESS_KEY_ID, settings.MTURK_SECRET_ACCESS_KEY = "AKIAFAKEFAKEFAKE", "fake-secret"
    yield fake
    fake.close()


@pytest.fixture
def jobs_run_at_once(settings):
    """Jobs run in-process as their transaction commits (the embedded default)."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
