"""The production wiring: settings from the environment, deploy checks, docker compose."""

import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from django.core.management import get_commands

import bootstrap

ROOT = Path(__file__).resolve().parents[3]
PRODUCTION_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "k" * 20 + "-production-like-secret-0f9a8b7c6d5e4f3a2b1c",
    "ALLOWED_HOSTS": "trailmark.example.org",
    "DATABASE_URL": "sqlite:////tmp/trailmark-deploy-check.sqlite3",
}


def _settings_variables():
    source = (ROOT / "platform" / "config" / "settings.py").read_text()
    return set(re.findall(r"(?:environ\.get|env_bool|env_list)\(\s*\"([A-Z0-9_]+)\"", source))


def _manage(*args, env):
    """Runs manage.py configured by ``env`` alone (the test run's own DATABASE_URL and
    the like are left out)."""
    unset = _settings_variables() | {"DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    clean = {key: value for key, value in os.environ.items() if key not in unset}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_pass_the_deploy_check_without_warnings():
    result = _manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION_ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_missing_secret_key_outside_debug_is_a_clear_error():
    env = {**PRODUCTION_ENV, "SECRET_KEY": ""}
    result = _manage("check", env=env)
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


def test_embedded_default_needs_no_environment(tmp_path):
    result = _manage("diffsettings", env={"DEBUG": "1", "TRAILMARK_VAR_DIR": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    assert "sqlite3" in result.stdout and "CELERY_TASK_ALWAYS_EAGER = True" in result.stdout
    assert "FileSystemStorage" in result.stdout


def test_s3_storage_is_chosen_when_a_bucket_is_set(tmp_path):
    env = {
        "DEBUG": "1",
        "TRAILMARK_VAR_DIR": str(tmp_path),
        "S3_BUCKET": "trailmark-test",
        "S3_ENDPOINT_URL": "http://127.0.0.1:9",
    }
    result = _manage("diffsettings", env=env)
    assert result.returncode == 0, result.stderr
    assert "storages.backends.s3.S3Storage" in result.stdout and "trailmark-test" in result.stdout


def test_pytest_uses_the_same_source_folders_as_every_other_entry_point():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert tuple(config["tool"]["pytest"]["ini_options"]["pythonpath"]) == bootstrap.SOURCE_DIRS
    assert not (ROOT / "platform" / "__init__.py").exists()


def _compose():
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def _commands(command):
    """The commands a compose service runs, unpacking `sh -c "a && b"`."""
    words = shlex.split(command) if isinstance(command, str) else list(command)
    if words[:2] == ["sh", "-c"]:
        return [shlex.split(part.replace("exec ", "", 1)) for part in words[2].split("&&")]
    return [words]


def test_compose_has_every_production_service():
    services = _compose()["services"]
    assert {"web", "worker", "beat", "flower", "postgres", "redis", "minio"} <= set(services)
    for name in ("postgres", "redis", "minio"):
        assert services[name]["image"]


@pytest.mark.parametrize("service", ["web", "worker", "beat", "flower"])
def test_each_compose_command_exists_in_the_project(service):
    spec = _compose()["services"][service]
    assert spec["build"] == "." and (ROOT / "Dockerfile").exists()
    for words in _commands(spec["command"]):
        program, args = words[0], words[1:]
        if program == "python":
            assert args[0] == "manage.py" and args[1] in get_commands(), words
        elif program == "gunicorn":
            config_file, app = args[args.index("-c") + 1], args[-1]
            assert (ROOT / config_file).exists()
            module = __import__(app, fromlist=["application"])
            assert callable(module.application)
        elif program == "celery":
            assert args[:2] == ["-A", "bootstrap:celery_app"]
            subcommand = args[2]
            env = {**os.environ, **PRODUCTION_ENV}
            result = subprocess.run(
                [sys.executable, "-m", "celery", *args[:3], "--help"],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert result.returncode == 0, f"celery {subcommand}: {result.stderr}"
        else:
            pytest.fail(f"{service} runs {program!r}, which the project does not provide")


def test_compose_sets_only_variables_that_settings_read():
    read = _settings_variables()
    environment = _compose()["x-app"]["environment"]
    assert set(environment) <= read, set(environment) - read


def test_static_files_collect_with_the_production_storage(tmp_path):
    """What the web container runs first: every reference between static files (source
    maps, fonts, images) must resolve, or the manifest storage refuses to build."""
    env = {**PRODUCTION_ENV, "STATIC_ROOT": str(tmp_path / "static")}
    result = _manage("collectstatic", "--noinput", env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    assert (tmp_path / "static" / "staticfiles.json").exists()


def test_pages_carry_a_content_security_policy(client):
    policy = client.get("/accounts/login/")["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["script-src"] == "'self'"  # no inline script without this response's nonce
    assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"
    assert "'unsafe-eval'" not in policy


@pytest.mark.django_db
def test_token_calls_carry_a_policy_that_lets_nothing_load(rater):
    from django.test import Client

    from accounts.services import create_api_token

    _token, key = create_api_token(user=rater, name="script")
    script = Client(HTTP_AUTHORIZATION=f"Token {key}")
    for response in (
        script.get("/api/v1/assignments/"),
        script.post("/api/v1/assignments/", {"batch": 999999}, content_type="application/json"),
        script.post("/api/v1/assignments/", "{", content_type="application/json"),
    ):
        assert response.status_code in (200, 400, 404), response.content
        assert response["Content-Security-Policy"] == "default-src 'none'; frame-ancestors 'none'"
    # A browser signed in on the same API gets the pages' policy.
    browser = Client()
    browser.force_login(rater)
    policy = browser.get("/api/v1/assignments/")["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "default-src 'none'" not in policy


@pytest.mark.django_db
def test_browser_posts_need_the_csrf_token_and_token_calls_do_not(rater):
    from django.conf import settings
    from django.middleware.csrf import CsrfViewMiddleware
    from django.test import Client
    from django.utils.module_loading import import_string

    assert any(issubclass(import_string(path), CsrfViewMiddleware) for path in settings.MIDDLEWARE)
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(rater)
    assert browser.post("/accounts/tokens/", {"name": "script"}).status_code == 403

    from accounts.services import create_api_token

    _token, key = create_api_token(user=rater, name="script")
    script = Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=f"Token {key}")
    # A script's write goes through to the view (which finds no such batch), CSRF unasked.
    refused = script.post("/api/v1/assignments/", {"batch": 999999}, content_type="application/json")
    assert refused.status_code == 404, refused.content
