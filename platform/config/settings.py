"""Trailmark settings: every value that differs between machines is read here, from
the environment, and nowhere else.

With no environment at all, Trailmark runs on its embedded default: a SQLite file and
uploaded files under ``var/``, Celery tasks run eagerly in the web process.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONCE, NONE, SELF, UNSAFE_INLINE
from django.core.exceptions import ImproperlyConfigured

ROOT_DIR = Path(__file__).resolve().parents[2]
VAR_DIR = Path(os.environ.get("TRAILMARK_VAR_DIR", ROOT_DIR / "var"))


def env_bool(name, default=False):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a yes/no value; use 1 or 0.")


def env_list(name, default=""):
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. Set it to a long random string, or set DEBUG=1 "
            "for a local run on the embedded default."
        )
    SECRET_KEY = "insecure-local-development-key-only-for-DEBUG-runs-0123456789"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    # The foundation, floor by floor (docs/architecture.md), then the work on top of it.
    "accounts",
    "webhooks",
    "assets",
    "hits",
    "outbox",
    "corpus",
    "moderation",
    "mining",
    "generation",
    "releases",
    "dashboards",
    "providers",
    "collection",
    "validation",
    "console",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Sessions, CSRF, the signed-in user and messages serve browsers: API calls made with
    # a token pass them over (config/middleware.py).
    "config.middleware.SessionMiddleware",
    "config.middleware.RejectNulCharacters",
    "django.middleware.common.CommonMiddleware",
    "config.middleware.CsrfViewMiddleware",
    "config.middleware.AuthenticationMiddleware",
    "config.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # django-csp's, with a fixed, stricter policy for token calls (config/middleware.py).
    "config.middleware.CSPMiddleware",
    # Last: it answers a locked-out log-in attempt (accounts.views.locked_out).
    "axes.middleware.AxesMiddleware",
]

# Django's deploy check looks for its CSRF middleware by name; config.middleware's subclass
# (which token calls pass over) is it for every browser request, as the CSRF tests show.
SILENCED_SYSTEM_CHECKS = ["security.W003"]

# Content-Security-Policy (django-csp): scripts only from this site, and the two inline
# scripts of the task pages by nonce (`<script nonce="{{ request.csp_nonce }}">`); JSON
# data blocks are not scripts. Inline styles stay allowed: htmx adds its indicator style.
# Images on S3 are served by a redirect to a signed link: their origin must be allowed.
S3_ORIGINS = []
if os.environ.get("S3_BUCKET"):
    S3_ORIGINS = (
        [os.environ["S3_ENDPOINT_URL"].rstrip("/")]
        if os.environ.get("S3_ENDPOINT_URL")
        else ["https://*.amazonaws.com"]
    )
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, UNSAFE_INLINE],
        "img-src": [SELF, "data:", "blob:", *S3_ORIGINS],
        "connect-src": [SELF],
        "font-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# Log-in protection (django-axes): after AXES_FAILURE_LIMIT failed log-ins, the account
# and the address are each locked for AXES_COOLOFF_MINUTES; an admin unlocks sooner by
# deleting the attempts (Axes › Access attempts) or with `manage.py axes_reset_username`.
# Workers arriving from a recruitment provider (docs/providers.md) are logged in without
# a password by ProviderLinkBackend, which declines every password check.
AUTHENTICATION_BACKENDS = [
    "accounts.backends.LoginGuardBackend",
    "django.contrib.auth.backends.ModelBackend",
    "accounts.backends.ProviderLinkBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=float(os.environ.get("AXES_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "accounts.views.locked_out"
AXES_VERBOSE = False
# API tokens: failed token checks from one address within a window, before 429.
TOKEN_FAILURE_LIMIT = int(os.environ.get("TOKEN_FAILURE_LIMIT", "30"))
TOKEN_FAILURE_WINDOW_SECONDS = int(os.environ.get("TOKEN_FAILURE_WINDOW_SECONDS", "300"))

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [ROOT_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "validation.context_processors.decisions_to_read",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------
DATABASE_URL = os.environ.get("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'trailmark.sqlite3'}"
# Health checks: a connection that died with a PostgreSQL restart is replaced on the next
# request instead of failing it.
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=True)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite serialises writers; wait for the lock instead of failing at once.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
else:
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    # Django's PostgreSQL backend, its health check reading the socket before it asks the
    # server (config/postgresql/base.py).
    DATABASES["default"]["ENGINE"] = "config.postgresql"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: cache and Celery broker -----------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    # A Redis outage makes the cache miss and the write throttle let writes through; it
    # never fails a request (config/cache.py, config/api.py).
    CACHES = {
        "default": {
            "BACKEND": "config.cache.FailSoftRedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 2},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", REDIS_URL)
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", REDIS_URL) or None
# No broker configured: the embedded default runs every task in-process, at once.
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "trailmark")
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker outlives its broker: it retries forever instead of exiting.
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_BROKER_TRANSPORT_OPTIONS = {"socket_connect_timeout": 2, "socket_timeout": 5, "retry_on_timeout": True}
# A request sending a job does not wait long for a broker that is down: the outbox keeps
# the job and beat relays it (outbox/services.py).
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}
CELERY_TIMEZONE = "UTC"
# A job still unsent this long after its transaction is relayed by beat (outbox).
OUTBOX_RELAY_AFTER_SECONDS = float(os.environ.get("OUTBOX_RELAY_AFTER_SECONDS", "20"))
CELERY_BEAT_SCHEDULE = {
    # Sends the jobs a broker outage held back (outbox), and re-queues lost pre-screens.
    "relay-outbox": {
        "task": "outbox.tasks.relay_pending",
        "schedule": timedelta(seconds=float(os.environ.get("OUTBOX_RELAY_SECONDS", "30"))),
    },
    "sweep-unscreened-assets": {
        "task": "moderation.tasks.sweep_unscreened",
        "schedule": timedelta(seconds=float(os.environ.get("PRESCREEN_SWEEP_SECONDS", "300"))),
    },
    "expire-overdue-assignments": {
        "task": "hits.tasks.expire_overdue_assignments",
        "schedule": timedelta(seconds=float(os.environ.get("EXPIRY_SWEEP_SECONDS", "60"))),
    },
    # Adds the assignment changes the database logged to the dashboards' tallies.
    # Sends webhook deliveries that are due (retries); watches queues and batches for events.
    "send-due-webhooks": {
        "task": "webhooks.send_due",
        "schedule": timedelta(seconds=float(os.environ.get("WEBHOOK_SWEEP_SECONDS", "15"))),
    },
    "watch-queues-and-batches": {
        "task": "dashboards.tasks.watch",
        "schedule": timedelta(seconds=float(os.environ.get("WEBHOOK_WATCH_SECONDS", "60"))),
    },
    "fold-dashboard-changes": {
        "task": "dashboards.tasks.fold_changes",
        "schedule": timedelta(seconds=float(os.environ.get("DASHBOARD_FOLD_SECONDS", "60"))),
    },
}

# --- Files ------------------------------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [ROOT_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", VAR_DIR / "staticfiles"))
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", VAR_DIR / "media"))

AWS_STORAGE_BUCKET_NAME = os.environ.get("S3_BUCKET", "")
if os.environ.get("S3_BUCKET"):
    _default_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": AWS_STORAGE_BUCKET_NAME,
            "endpoint_url": os.environ.get("S3_ENDPOINT_URL") or None,
            "region_name": os.environ.get("S3_REGION") or None,
            "access_key": os.environ.get("S3_ACCESS_KEY_ID") or None,
            "secret_key": os.environ.get("S3_SECRET_ACCESS_KEY") or None,
            "addressing_style": os.environ.get("S3_ADDRESSING_STYLE", "path"),
            "signature_version": "s3v4",
            "default_acl": None,
            "querystring_auth": True,
            "querystring_expire": int(os.environ.get("S3_URL_EXPIRY_SECONDS", "300")),
            "file_overwrite": False,
        },
    }
else:
    _default_storage = {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": MEDIA_ROOT},
    }
STORAGES = {
    "default": _default_storage,
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# --- Accounts and sessions --------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "hits:home"
LOGOUT_REDIRECT_URL = "accounts:login"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- REST API -----------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "config.api.Pagination",
    "PAGE_SIZE": 50,
    "DEFAULT_THROTTLE_RATES": {
        "writes": os.environ.get("API_WRITE_RATE", "120/min"),
        "uploads": os.environ.get("API_UPLOAD_RATE", "1200/min"),
        "anon": os.environ.get("API_ANON_RATE", "60/min"),
    },
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}
SPECTACULAR_SETTINGS = {
    # Every operation's error responses, with the error body (config/api.py).
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "config.api.document_errors"],
    "TITLE": "Trailmark API",
    "DESCRIPTION": (
        "Hand out and submit work, upload screenshots and browsing traces, manage batches, "
        "pools, mining and generation runs, webhooks and API tokens, and list, download and "
        "evaluate dataset releases. Authenticate with `Authorization: Token <key>`; create "
        "keys on your profile page."
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Serve the docs page's scripts from our own static files, not a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Many resources have a "state" or a "kind"; each set of choices gets its own name.
    "ENUM_NAME_OVERRIDES": {
        "BatchStateEnum": "hits.models.Batch.State",
        "AssignmentStateEnum": "hits.models.Assignment.State",
        "TraceStateEnum": "corpus.models.Trace.State",
        "QAPairStateEnum": "corpus.models.QAPair.State",
        "PoolImportKindEnum": "collection.models.PoolImport.Kind",
        # Pool imports and mining chunks share one set: queued, running, done, failed.
        "JobStateEnum": "collection.models.PoolImport.State",
        "DistractorKindEnum": "mining.models.Distractor.Kind",
        "MiningRunScopeEnum": "mining.models.MiningRun.Scope",
        "MiningRunStateEnum": "mining.models.MiningRun.State",
        "ReasoningCheckStateEnum": "mining.models.ReasoningCheck.State",
        "ReleaseStateEnum": "releases.models.Release.State",
        # Three sets share the word "family": dataset families in releases and evaluations,
        # a QA pair's family, and the families of training and qualification tests.
        "DatasetFamilyEnum": "releases.models.FAMILIES",
        "QAPairFamilyEnum": "corpus.models.QAPair.Family",
        "TrainingFamilyEnum": "validation.models.Family",
    },
}

# --- Work engine ------------------------------------------------------------------------
# Minutes a worker may hold an assignment before it expires, when a batch sets none.
ASSIGNMENT_MINUTES = int(os.environ.get("ASSIGNMENT_MINUTES", "30"))
# A task a worker returned comes back to them once they have no other task in its batch,
# and not before this many minutes have passed (so "skip" never hands the same one back).
RETURNED_TASK_PAUSE_MINUTES = int(os.environ.get("RETURNED_TASK_PAUSE_MINUTES", "5"))
# A worker is disqualified from a kind of work once at least this many of their
# submissions of it are rejected and the rejections make up at least this share of
# their reviewed submissions of it.
DISQUALIFY_MIN_REJECTIONS = int(os.environ.get("DISQUALIFY_MIN_REJECTIONS", "3"))
DISQUALIFY_REJECTION_SHARE = float(os.environ.get("DISQUALIFY_REJECTION_SHARE", "0.3"))

# --- Image and text HITs (collection) ------------------------------------------------------
# Local pool imports (collection/pools.py) are read only from under this folder.
POOL_IMPORT_ROOT = Path(os.environ.get("POOL_IMPORT_ROOT", VAR_DIR / "imports"))
# The grouping job pairs two image-filter triples into a six-image group only when their
# labels are at least this similar (cosine of their TF-IDF vectors, 0–1).
GROUPING_MIN_SIMILARITY = float(os.environ.get("GROUPING_MIN_SIMILARITY", "0.3"))

# --- Assets -------------------------------------------------------------------------------
# Limits on one uploaded image (platform/assets): its size in bytes, and its pixels, which
# are checked from the header before any are decoded.
ASSET_MAX_BYTES = int(os.environ.get("ASSET_MAX_BYTES", str(20 * 1024 * 1024)))
ASSET_MAX_PIXELS = int(os.environ.get("ASSET_MAX_PIXELS", "50000000"))
# Refused before decoding: what cannot be a web screenshot or a photo. A full-page
# screenshot of 1280 × 30000 passes; a 1 × 49,000,000 strip does not.
ASSET_MAX_SIDE = int(os.environ.get("ASSET_MAX_SIDE", "32000"))
ASSET_MAX_ASPECT = float(os.environ.get("ASSET_MAX_ASPECT", "40"))
ASSET_MAX_DECODE_BYTES = int(os.environ.get("ASSET_MAX_DECODE_BYTES", str(160 * 1024 * 1024)))
# Decodes at once per process, and how long an upload waits for a free one before it is
# told to retry (503 with Retry-After): one rater's large uploads cannot starve the rest.
ASSET_DECODE_SLOTS = int(os.environ.get("ASSET_DECODE_SLOTS", "2"))
ASSET_DECODE_WAIT_SECONDS = float(os.environ.get("ASSET_DECODE_WAIT_SECONDS", "10"))
# Uploaded files larger than this are spooled to a temporary file rather than held in memory.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
# The rest of a request body (JSON, form fields; files do not count) is read into memory.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440

# --- Validation and quality ---------------------------------------------------------------
# Qualification tests: a score at or above QUALIFICATION_PASS_SCORE qualifies; a first
# attempt at or above QUALIFICATION_RETRY_SCORE (but below the pass mark) earns one more.
QUALIFICATION_PASS_SCORE = float(os.environ.get("QUALIFICATION_PASS_SCORE", "0.8"))
QUALIFICATION_RETRY_SCORE = float(os.environ.get("QUALIFICATION_RETRY_SCORE", "0.6"))
# Every new QA pair gets a validation task in the newest open validation batch of its
# family; with this on, one is created and opened when there is none.
VALIDATION_AUTO_BATCH = env_bool("VALIDATION_AUTO_BATCH", True)
VALIDATION_REWARD = os.environ.get("VALIDATION_REWARD", "0.10")
REFERENCES_REWARD = os.environ.get("REFERENCES_REWARD", "0.10")
# Automatic disqualification, once a worker has enough decided work to judge by:
# validators agreeing with the majority less often than the share, and writers with
# fewer of their QA pairs accepted than the share.
QUALITY_MIN_JUDGEMENTS = int(os.environ.get("QUALITY_MIN_JUDGEMENTS", "10"))
QUALITY_MIN_AGREEMENT = float(os.environ.get("QUALITY_MIN_AGREEMENT", "0.6"))
QUALITY_MIN_PAIRS = int(os.environ.get("QUALITY_MIN_PAIRS", "5"))
QUALITY_MIN_ACCEPTANCE = float(os.environ.get("QUALITY_MIN_ACCEPTANCE", "0.5"))

# --- Mining ---------------------------------------------------------------------------------
# Hard negatives mined per question, of each kind (platform/mining, docs/mining.md).
MINING_TEXT_PER_QUESTION = int(os.environ.get("MINING_TEXT_PER_QUESTION", "15"))
MINING_IMAGE_PER_QUESTION = int(os.environ.get("MINING_IMAGE_PER_QUESTION", "15"))
MINING_SCREEN_PER_QUESTION = int(os.environ.get("MINING_SCREEN_PER_QUESTION", "15"))
# At most this many of a question's image distractors are chosen for looking like its evidence.
MINING_VISUAL_PER_QUESTION = int(os.environ.get("MINING_VISUAL_PER_QUESTION", "5"))
# Perceptual hashes this close (differing bits of 64) are the same picture: never a distractor.
MINING_NEAR_DUPLICATE_BITS = int(os.environ.get("MINING_NEAR_DUPLICATE_BITS", "10"))
# Beyond this many differing bits an image no longer counts as looking like the evidence.
MINING_VISUAL_MAX_BITS = int(os.environ.get("MINING_VISUAL_MAX_BITS", "24"))

# Text multi-hop tasks: each set of four snippets is a cluster of similar entities (BM25)
# whose members share at most this much of their word 3-grams, and at least this similarity.
SNIPPET_SET_MAX_OVERLAP = float(os.environ.get("SNIPPET_SET_MAX_OVERLAP", "0.2"))
SNIPPET_SET_MIN_SIMILARITY = float(os.environ.get("SNIPPET_SET_MIN_SIMILARITY", "0.05"))

# WebQA's test protocol: a test item whose five reference answers agree less than this
# (keyword recall, docs/releases.md) is left out of a release's test split.
REFERENCE_MIN_AGREEMENT = float(os.environ.get("REFERENCE_MIN_AGREEMENT", "0.6"))

# Webhooks (docs/webhooks.md): attempts per delivery, the first retry's delay (doubling
# after each failure), attempts in a row after which an endpoint is disabled, timeout.
WEBHOOK_MAX_ATTEMPTS = int(os.environ.get("WEBHOOK_MAX_ATTEMPTS", "8"))
WEBHOOK_RETRY_SECONDS = float(os.environ.get("WEBHOOK_RETRY_SECONDS", "30"))
WEBHOOK_DISABLE_AFTER = int(os.environ.get("WEBHOOK_DISABLE_AFTER", "10"))
WEBHOOK_TIMEOUT_SECONDS = float(os.environ.get("WEBHOOK_TIMEOUT_SECONDS", "10"))

# Recruitment providers (docs/providers.md). Prolific: its API's address and a token of
# the researcher's workspace; where participants are sent back with their code.
PROLIFIC_API_URL = os.environ.get("PROLIFIC_API_URL", "https://api.prolific.com").rstrip("/")
PROLIFIC_API_TOKEN = os.environ.get("PROLIFIC_API_TOKEN", "")
PROLIFIC_COMPLETION_URL = os.environ.get("PROLIFIC_COMPLETION_URL", "https://app.prolific.com/submissions/complete")
# Mechanical Turk: the requester endpoint (the sandbox unless set; production is
# https://mturk-requester.us-east-1.amazonaws.com) and its keys (empty: boto3's own
# lookup); the worker sites that may frame the task page and receive its submission.
MTURK_ENDPOINT_URL = os.environ.get("MTURK_ENDPOINT_URL", "https://mturk-requester-sandbox.us-east-1.amazonaws.com")
MTURK_ACCESS_KEY_ID = os.environ.get("MTURK_ACCESS_KEY_ID", "")
MTURK_SECRET_ACCESS_KEY = os.environ.get("MTURK_SECRET_ACCESS_KEY", "")
MTURK_WORKER_ORIGINS = env_list("MTURK_WORKER_ORIGINS", "https://www.mturk.com,https://workersandbox.mturk.com")
# This site's public address, for the task page's address in a published HIT (empty:
# taken from the admin's request).
PROVIDERS_SITE_URL = os.environ.get("PROVIDERS_SITE_URL", "").rstrip("/")
PROVIDER_TIMEOUT_SECONDS = float(os.environ.get("PROVIDER_TIMEOUT_SECONDS", "15"))

# Generation runs' "openai-compatible" generator: any chat-completions endpoint (a hosted
# API, vLLM, Ollama …). The key is only ever read from here, never stored with a run.
LLM_BASE_URL = os.environ.get("LLM_BASE_URL", "https://api.openai.com/v1")
LLM_MODEL = os.environ.get("LLM_MODEL", "gpt-4o-mini")
LLM_API_KEY = os.environ.get("LLM_API_KEY", "")
# BM25 candidates read per wanted distractor, before exclusions (more are read when short).
MINING_CANDIDATES_FACTOR = int(os.environ.get("MINING_CANDIDATES_FACTOR", "3"))
# QA pairs per chunk (one Celery task each), retries of a failed chunk and the wait between.
MINING_CHUNK_SIZE = int(os.environ.get("MINING_CHUNK_SIZE", "500"))
MINING_CHUNK_RETRIES = int(os.environ.get("MINING_CHUNK_RETRIES", "3"))
MINING_RETRY_SECONDS = float(os.environ.get("MINING_RETRY_SECONDS", "2"))
# How long a chunk waits for QA pairs another run is writing before it gives up and retries.
MINING_LOCK_TIMEOUT_SECONDS = float(os.environ.get("MINING_LOCK_TIMEOUT_SECONDS", "5"))
# Where workers keep a run's index while the run lasts.
MINING_INDEX_DIR = Path(os.environ.get("MINING_INDEX_DIR", VAR_DIR / "mining-index"))

# --- Releases -----------------------------------------------------------------------------
# Dataset release builds (platform/releases): QA pairs read and written per chunk, the
# storage folder releases go under, the queue their builds run on (a worker of its own
# keeps long builds off the work queue), and how long a build may go without reporting
# progress before an admin may start it again (its worker is taken to be dead).
RELEASE_CHUNK_SIZE = int(os.environ.get("RELEASE_CHUNK_SIZE", "1000"))
RELEASE_STORAGE_PREFIX = os.environ.get("RELEASE_STORAGE_PREFIX", "releases")
RELEASE_QUEUE = os.environ.get("RELEASE_QUEUE", CELERY_TASK_DEFAULT_QUEUE)
RELEASE_STALE_SECONDS = int(os.environ.get("RELEASE_STALE_SECONDS", "600"))
# Evaluations: the largest predictions file accepted.
EVALUATION_MAX_BYTES = int(os.environ.get("EVALUATION_MAX_BYTES", str(100 * 1024 * 1024)))

# --- Production hardening (checked by `manage.py check --deploy`) --------------------------
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(60 * 60 * 24 * 365)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
