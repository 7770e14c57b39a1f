"""Storage for the asset tests: a fresh local folder for each test, and a real
S3-compatible server (moto's server mode, in its own process) for the S3 tests."""

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import boto3
import pytest
from botocore.config import Config

S3_KEYS = {"access_key": "testing", "secret_key": "testing"}
S3_REGION = "us-east-1"


def stored_files(folder):
    """Paths of every file under ``folder``, relative to it, sorted."""
    return sorted(str(path.relative_to(folder)) for path in Path(folder).rglob("*") if path.is_file())


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    """The endpoint URL of a moto S3 server running for the whole session."""
    port = _free_port()
    endpoint = f"http://127.0.0.1:{port}"
    log_path = tmp_path_factory.mktemp("moto") / "server.log"
    log = open(log_path, "w")  # noqa: SIM115 (closed at teardown)
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(endpoint + "/moto-api/", timeout=2):
                    break
            except urllib.error.HTTPError:
                break  # it answered
            except (urllib.error.URLError, ConnectionError):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("The moto S3 server did not start:\n" + log_path.read_text()) from None
                time.sleep(0.2)
        yield endpoint
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.fixture
def s3(s3_server, settings):
    """Points Django's default storage at a new, empty bucket on the moto server, the
    way production settings do (S3Storage, path addressing, s3v4, signed URLs); returns
    a boto3 client and the bucket name for looking inside."""
    bucket = f"trailmark-{uuid.uuid4().hex[:12]}"
    client = boto3.client(
        "s3",
        endpoint_url=s3_server,
        region_name=S3_REGION,
        aws_access_key_id=S3_KEYS["access_key"],
        aws_secret_access_key=S3_KEYS["secret_key"],
        config=Config(signature_version="s3v4", s3={"addressing_style": "path"}, connect_timeout=5, read_timeout=10),
    )
    client.create_bucket(Bucket=bucket)
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": bucket,
                "endpoint_url": s3_server,
                "region_name": S3_REGION,
                **S3_KEYS,
                "addressing_style": "path",
                "signature_version": "s3v4",
                "default_acl": None,
                "querystring_auth": True,
                "querystring_expire": 120,
                "file_overwrite": False,
            },
        },
    }
    return client, bucket
