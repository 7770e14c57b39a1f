"""Test settings: the environment-driven settings with the few changes tests need.

The database, Redis and storage still come from the environment, so the same suite
runs on the embedded default (SQLite) and on PostgreSQL and Redis.
"""

import os

os.environ.setdefault("SECRET_KEY", "test-secret-key-not-for-production-0123456789abcdef")

from config.settings import *  # noqa: E402,F403

# The live server and the test client speak plain HTTP.
SECURE_SSL_REDIRECT = False
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
ALLOWED_HOSTS = ["*"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}  # noqa: F405
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {"writes": "10000/min", "uploads": "10000/min", "anon": "10000/min"}  # noqa: F405
# Serve static files straight from the source folders, as runserver does.
WHITENOISE_AUTOREFRESH = True
WHITENOISE_USE_FINDERS = True
# Failed token checks are counted per address in Redis, across tests: only the test of
# that limit sets a low one.
TOKEN_FAILURE_LIMIT = 100000
