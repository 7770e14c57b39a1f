import pytest


@pytest.fixture(autouse=True)
def index_dir(settings, tmp_path):
    """Runs in this process keep their index in a fresh folder per test."""
    settings.MINING_INDEX_DIR = tmp_path / "mining-index"
    return settings.MINING_INDEX_DIR
