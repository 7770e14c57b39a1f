# The real S3-compatible server (moto in server mode) of the asset tests.
from assets.tests.conftest import s3, s3_server  # noqa: F401
