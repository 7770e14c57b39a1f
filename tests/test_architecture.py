"""The floors of docs/architecture.md hold in the code, and every task kind keeps its
contract: the machine checks what the documents say."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rest_framework import serializers

from corpus.models import QAPair
from hits import registry
from hits.kinds.base import TaskKind

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(tree):
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=tree,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{tree}{':'}{tree / 'platform'}"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _copy_of_the_sources(tmp_path):
    for folder in ("platform", "collection", "validation"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__", "tests"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_the_floors_hold_on_this_tree():
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "forbidden", "contract"),
    [
        ("platform/corpus/selectors.py", "collection.services", "The foundation (platform/) never imports"),
        ("platform/releases/build.py", "validation.models", "The foundation (platform/) never imports"),
        ("platform/accounts/services.py", "hits.models", "Accounts know nothing of the work engine"),
        ("platform/assets/selectors.py", "corpus.models", "Assets know nothing of the records"),
        ("collection/services.py", "validation.quality", "Capture and checking work never import each other"),
        ("platform/hits/selectors.py", "mining.models", "Floors: each app imports only the floors below it"),
    ],
)
def test_an_import_up_a_floor_breaks_a_contract_that_names_it(tmp_path, module, forbidden, contract):
    tree = _copy_of_the_sources(tmp_path)
    with open(tree / module, "a") as source:
        source.write(f"\nimport {forbidden}  # noqa\n")
    result = _lint_imports(tree)
    assert result.returncode != 0
    importer = module.removeprefix("platform/").removesuffix(".py").replace("/", ".")
    broken = result.stdout[result.stdout.index("Broken contracts") :]
    assert contract in broken
    assert f"{importer} -> {forbidden}" in broken


# --- Task kinds ----------------------------------------------------------------------------

KINDS = registry.all_kinds()
NEGATIVES = {"text", "image", "trace_screens", "category_screens"}


@pytest.mark.parametrize("kind", KINDS, ids=[kind.name for kind in KINDS])
def test_every_registered_kind_declares_what_others_ask_of_it(kind):
    assert isinstance(kind, TaskKind)
    assert re.fullmatch(r"[a-z][a-z0-9_]*", kind.name)
    assert kind.title and kind.summary
    assert (ROOT / "templates" / kind.template_name).is_file(), kind.template_name
    assert issubclass(kind.input_serializer, serializers.Serializer)
    assert issubclass(kind.submission_serializer, serializers.Serializer)
    assert kind.required_role
    # The pairs it writes: both or neither, from the corpus's own choices.
    assert bool(kind.family) == bool(kind.split_kind)
    if kind.split_kind:
        assert kind.family in QAPair.Family.values
        assert kind.split_kind in QAPair.SplitKind.values
        first = registry.writing(kind.split_kind)
        assert (first.family, first.negatives, first.categorised_as) == (
            kind.family, kind.negatives, kind.categorised_as,
        ), "kinds writing one split kind treat its pairs alike"  # fmt: skip
        assert kind.categorised_as in ("webqa", "text", "reasoning", "")
    else:
        assert not kind.negatives and not kind.categorised_as
    assert set(kind.negatives) <= NEGATIVES
    assert kind.tutorial in ("", "screens", "traces", "images", "text")
    assert not kind.shows_trace or kind.takes_traces or kind.split_kind
    assert registry.get(kind.name) is kind


def test_kinds_register_themselves_from_their_apps():
    homes = {kind.name: type(kind).__module__.split(".")[0] for kind in KINDS}
    assert homes["demo_question"] == "hits"
    assert {name for name, app in homes.items() if app == "collection"} >= {"trace_qa", "six_image_qa"}
    assert {name for name, app in homes.items() if app == "validation"} == {
        "validation",
        "references",
        "candidate_review",
    }


def _sources_outside_the_kinds():
    kind_modules = {Path(sys.modules[type(kind).__module__].__file__).resolve() for kind in KINDS}
    for pattern in ("platform/**/*.py", "collection/**/*.py", "validation/**/*.py", "templates/**/*.html",
                    "static/**/*.js", "extension/**/*.js"):  # fmt: skip
        for path in ROOT.glob(pattern):
            parts = set(path.relative_to(ROOT).parts)
            if parts & {"tests", "migrations", "kinds", "vendor", "node_modules"} or path.resolve() in kind_modules:
                continue
            yield path


def test_no_code_outside_a_kind_compares_a_kind_name():
    names = "|".join(re.escape(kind.name) for kind in KINDS)
    quoted = rf"""["']({names})["']"""
    comparison = re.compile(
        rf"(==|!=|===|!==)\s*{quoted}|{quoted}\s*(==|!=|===|!==)"  # x == "name"
        rf"|\b(filter|exclude|get)\([^)]*\bkind(__in)?=\[?{quoted}"  # .filter(kind="name")
        rf"|__kind(__in)?=\[?{quoted}"  # .filter(batch__kind="name")
        rf"|\bin\s*[\[(]\s*{quoted}"  # kind in ("name", …)
    )
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in _sources_outside_the_kinds()
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if comparison.search(line)
    ]
    assert found == []


def test_every_apps_tests_are_collected_by_the_suite():
    import tomllib

    testpaths = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["testpaths"])
    apps_with_tests = {path.parent.name for path in ROOT.glob("*/tests") if (path.parent / "apps.py").exists()}
    assert apps_with_tests, "no top-level app found"
    assert apps_with_tests <= testpaths, f"not collected: {sorted(apps_with_tests - testpaths)}"
    assert "platform" in testpaths
