"""A release as other tools read it: ``croissant.json`` loads in ``mlcroissant`` and its
record sets yield every record, and ``datasets.load_dataset`` loads each family from the
README's header, split by split. Both libraries are imported inside the tests: they are
slow to import and only these tests need them."""

import json
from collections import Counter

import pytest

from releases.models import ReleaseItem
from releases.snapshot import guid_of
from tests import navigation

from . import data
from .helpers import build_now, read, release

pytestmark = pytest.mark.django_db
SPLITS = ("train", "val", "test")


@pytest.fixture
def downloaded(admin_user, rater, tmp_path):
    """A published release of all three families, its public files copied into a folder
    as a researcher downloads them; returns (release, folder). WebQA has one pair only,
    so two of its splits are empty."""
    for n in range(4):
        data.screen_pair(rater, question=f"How much is item {n}?")
    data.webqa_image_pair(rater)
    for host in ("shop.example", "books.example"):
        site = navigation.recorded_site(rater, host=host)
        for target in ("/kettles/steel", "/kettles/glass", "/mugs/blue"):
            navigation.episode(rater, site, target)
    built = build_now(release(admin_user, test_answers_public=True))
    assert built.state == "published", built.message
    folder = tmp_path / "download"
    for path in built.files.filter(private=False).values_list("path", flat=True):
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(read(built, path))
    return built, folder


def _expected(built):
    """``{family: {split: n}}`` of the release's items, non-empty splits only."""
    rows = ReleaseItem.objects.filter(release=built).values_list("family", "split")
    expected = {}
    for (family, split), n in Counter(rows).items():
        expected.setdefault(family, {})[split] = n
    return expected


def test_croissant_lists_every_data_file_with_the_manifests_hash(downloaded):
    built, folder = downloaded
    document = json.loads((folder / "croissant.json").read_text())
    manifest = {entry["path"]: entry for entry in json.loads((folder / "manifest.json").read_text())["files"]}
    assert "croissant.json" in manifest  # the manifest lists it; it comes before the manifest
    objects = {node["@id"]: node for node in document["distribution"] if node["@type"] == "cr:FileObject"}
    records = {path for path in manifest if path.startswith("records/")}
    assert records and records <= set(objects)
    for path, node in objects.items():
        assert node["sha256"] == manifest[path]["sha256"] and node["contentUrl"] == path
    assert not [path for path in objects if path.startswith(("evaluation/", "images/", "webvln/imgs/"))]
    sets = {node["@id"]: node for node in document["distribution"] if node["@type"] == "cr:FileSet"}
    assert sets["images"]["includes"] == ["images/*.png"]
    assert sets["webvln-buttons"]["includes"] == "webvln/imgs/*.png"
    assert [record_set["@id"] for record_set in document["recordSet"]] == ["webqa", "webquest", "webvln"]
    assert document["version"] == "1.0.0" and document["dateCreated"] == built.snapshot_at.isoformat()


def test_croissant_loads_in_mlcroissant_and_each_record_set_yields_its_records(downloaded):
    import mlcroissant

    built, folder = downloaded
    dataset = mlcroissant.Dataset(jsonld=folder / "croissant.json")  # raises on any error
    assert not dataset.metadata.ctx.issues.errors
    expected = _expected(built)
    for family, splits in expected.items():
        records = list(dataset.records(record_set=family))
        assert Counter(_text(record[f"{family}/split"]) for record in records) == splits
        guids = set(ReleaseItem.objects.filter(release=built, family=family).values_list("guid", flat=True))
        assert {_text(record[f"{family}/id"]) for record in records} == guids
        assert all(record[f"{family}/question"] for record in records)
    episode = next(iter(dataset.records(record_set="webvln")))
    assert _text(episode["webvln/website"]) in {"shop.example", "books.example"}
    assert len(episode["webvln/path"]) >= 3  # homepage, a category page, the target


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def test_datasets_loads_each_family_by_split_from_the_readme_header(downloaded, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import datasets

    built, folder = downloaded
    expected = _expected(built)
    assert len(expected["webqa"]) == 1  # an empty split is left out of the config, not loaded empty
    for family, splits in expected.items():
        loaded = datasets.load_dataset(str(folder), family, cache_dir=str(tmp_path / "hf-cache"))
        assert {split: loaded[split].num_rows for split in loaded} == splits, family
        first = loaded[next(iter(splits))][0]
        assert first["family"] == family and first["question"]
    webquest = datasets.load_dataset(str(folder), "webquest", cache_dir=str(tmp_path / "hf-cache"))
    loaded_ids = {row["id"] for split in webquest for row in webquest[split]}
    assert loaded_ids == {
        guid_of(pk) for pk in built.items.filter(family="webquest").values_list("qa_pair_id", flat=True)
    }


def test_the_front_matter_names_only_files_the_release_has(downloaded):
    built, folder = downloaded
    readme = (folder / "README.md").read_text()
    header, body = readme.removeprefix("---\n").split("\n---\n", 1)
    assert body.lstrip().startswith(f"# {built.name} {built.version}")
    assert built.datasheet == body.lstrip("\n")  # the page and the API show the datasheet without it
    named = {line.split("path: ")[1] for line in header.splitlines() if "path: " in line}
    assert named == {
        f"records/{family}/{split}.jsonl" for family, splits in _expected(built).items() for split in splits
    }
    assert all((folder / path).exists() for path in named)
