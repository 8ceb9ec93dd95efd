"""Mnemo settings, driven by environment variables; the defaults give a working laptop setup.

Every variable is listed in README.md ("Configuration"). Embedded services write their URLs to
``var/<profile>/services.json``; that file is read only when ``DATABASE_URL`` / ``REDIS_URL`` are
not set, so ``manage.py`` works next to a running ``make run``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.utils.csp import CSP
from kombu import Queue
from psycopg_pool import ConnectionPool

from config.embedded import services_file, var_dir
from config.env import (
    ConfigError,
    database_from_url,
    env_bool,
    env_int,
    env_list,
    env_str,
    queues,
    read_secret_file,
)

BASE_DIR = Path(__file__).resolve().parents[2]
# dev (make run), test (make test; also chosen when pytest imports these settings), or anything
# else for a deployment, where secrets must come from the environment.
PROFILE = env_str("MNEMO_PROFILE", "test" if "pytest" in sys.modules else "dev")
LAPTOP = PROFILE in {"dev", "test", "bench"}
VAR_DIR = var_dir(PROFILE)


def _service_url(name: str) -> str:
    url = env_str(name)
    if url:
        return url
    path = services_file(PROFILE)
    if path.exists():
        return str(json.loads(path.read_text()).get(name, ""))
    return ""


# Off by default even on a laptop: the dashboard shows its own error pages, the log has details.
DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY") or read_secret_file(VAR_DIR / "secret_key", create=LAPTOP)
# API keys are stored as HMAC digests; the pepper must stay stable or every key stops working.
API_KEY_PEPPER = env_str("API_KEY_PEPPER") or (SECRET_KEY if LAPTOP else "")
if not SECRET_KEY or not API_KEY_PEPPER:
    raise ConfigError(
        f"profile {PROFILE!r} needs SECRET_KEY and API_KEY_PEPPER in the environment "
        "(every web and worker process must share them)"
    )
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
PUBLIC_URL = env_str("PUBLIC_URL", "http://127.0.0.1:8000").rstrip("/")

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django.contrib.postgres",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "channels",
    "tenants",
    "audit",
    "gateway",
    "memory",
    "roles",
    "frontend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "audit.middleware.RequestContextMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "frontend.middleware.ServiceErrorMiddleware",
    "tenants.middleware.TenantTransactionMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
AUTH_USER_MODEL = "tenants.User"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "frontend.context.navigation",
            ],
        },
    },
]

_database_url = _service_url("DATABASE_URL")
if not _database_url:
    raise ConfigError(
        "DATABASE_URL is not set and no embedded Postgres is running for profile "
        f"{PROFILE!r}: start one with `make run` (or `make test`), or set DATABASE_URL."
    )
DATABASES = {"default": database_from_url(_database_url)}
DATABASES["default"]["OPTIONS"].setdefault("connect_timeout", env_int("DB_CONNECT_TIMEOUT", 3))
# The role that owns the schema and runs migrations (make run and the tests use it; production
# runs `migrate` with DATABASE_URL pointing at the owner). The app itself never connects as it.
DATABASE_OWNER_URL = _service_url("DATABASE_OWNER_URL")

# Requests one web worker runs at once; the rest wait, reads first (config/admission.py).
# 0 turns the gate off.
WEB_SLOTS = env_int("WEB_SLOTS", 4)

# A connection pool: under ASGI every request runs in a new thread, so Django's per-thread
# persistent connections would reconnect on every request (~15 ms). Tests connect per request
# instead, so test databases can be dropped.
DB_POOL_SIZE = env_int("DB_POOL_SIZE", 0 if PROFILE == "test" else 8)
if DB_POOL_SIZE:
    DATABASES["default"]["OPTIONS"]["pool"] = {
        "min_size": 1,
        "max_size": DB_POOL_SIZE,
        "timeout": env_int("DB_POOL_TIMEOUT", 5),  # then 503, instead of holding the client
        # a connection is checked as it leaves the pool: after a database restart a dead one is
        # replaced, instead of failing the request that drew it
        "check": ConnectionPool.check_connection,
        "max_idle": 300,
    }
else:
    DATABASES["default"]["CONN_MAX_AGE"] = 0
# Parameters travel apart from the SQL (server-side binding), and a statement a connection has
# run DB_PREPARE_THRESHOLD times is prepared: Postgres parses it once and, when its generic plan
# costs no more than the custom ones it has seen, stops planning it (recall: ~25 statements,
# 5 ms less per recall in process). 0 turns it off (a transaction-pooling pgbouncer before
# 1.21 needs that). See docs/DECISIONS.md, "Recall, sixth pass".
DATABASES["default"]["OPTIONS"]["server_side_binding"] = True
_prepare_threshold = env_int("DB_PREPARE_THRESHOLD", 5)
DATABASES["default"]["OPTIONS"]["prepare_threshold"] = _prepare_threshold or None
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = _service_url("REDIS_URL")
if not REDIS_URL:
    raise ConfigError("REDIS_URL is not set and no embedded Redis is running; see DATABASE_URL.")
CACHES = {
    "default": {
        "BACKEND": "base.cache.ResilientRedisCache",  # a miss, not a 500, when Redis is away
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": f"mnemo:{PROFILE}",
        "OPTIONS": {"socket_timeout": 2, "socket_connect_timeout": 2},
    }
}
SESSION_ENGINE = "django.contrib.sessions.backends.db"
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {
            # redis-py's default 5 s socket timeout races channels-redis's 5 s blocking pop
            # (a consumer died every ~5 s): the socket waits longer than any pop.
            "hosts": [{"address": REDIS_URL, "socket_timeout": 15}],
            "prefix": f"mnemo:{PROFILE}:ch",
        },
    }
}

CELERY_BROKER_URL = REDIS_URL
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Queues: an import never waits behind embeddings, nor either behind maintenance. `make run`
# starts one worker for imports and one for the rest; a deployment may run one per queue.
QUEUES = queues(PROFILE)
QUEUE_DEFAULT, QUEUE_IMPORTS = QUEUES["default"], QUEUES["imports"]
QUEUE_EMBEDDINGS, QUEUE_MAINTENANCE = QUEUES["embeddings"], QUEUES["maintenance"]
QUEUE_EXTRACTION = QUEUES["extraction"]
CELERY_TASK_DEFAULT_QUEUE = QUEUE_DEFAULT
# every queue declared: a worker started without --queues (deploy/) serves them all
CELERY_TASK_QUEUES = [Queue(name) for name in QUEUES.values()]
CELERY_TASK_ROUTES = {
    "memory.tasks.import_network": {"queue": QUEUE_IMPORTS},
    "memory.tasks.extract_episodes": {"queue": QUEUE_EXTRACTION},
    "memory.tasks.learn_skills": {"queue": QUEUE_EXTRACTION},
    "memory.tasks.embed_engrams": {"queue": QUEUE_EMBEDDINGS},
    "memory.tasks.decay_edges": {"queue": QUEUE_MAINTENANCE},
    "memory.tasks.archive_cold_engrams": {"queue": QUEUE_MAINTENANCE},
    "memory.tasks.prune_recall_events": {"queue": QUEUE_MAINTENANCE},
    "memory.tasks.apply_retention": {"queue": QUEUE_MAINTENANCE},
    "memory.tasks.erase": {"queue": QUEUE_MAINTENANCE},
    "memory.tasks.requeue_stale_work": {"queue": QUEUE_MAINTENANCE},
    "memory.tasks.flush_access": {"queue": QUEUE_MAINTENANCE},
}
# A task a crashed worker held comes back after this many seconds. Every task is shorter: an
# import works in slices of IMPORT_SLICE_SECONDS and queues its own continuation.
TASK_VISIBILITY_SECONDS = env_int("TASK_VISIBILITY_SECONDS", 60)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": TASK_VISIBILITY_SECONDS,
    "socket_timeout": 2,  # a hung Redis fails a publish in seconds, not never
    "socket_connect_timeout": 2,
}
CELERY_BROKER_CONNECTION_TIMEOUT = 2
# No retries inside a request: a message the broker refuses waits in the process and is sent
# again every 2 s (base.background.Pending), so a hung Redis holds a request for one socket
# timeout, not for a retry loop.
CELERY_TASK_PUBLISH_RETRY = False
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BEAT_SCHEDULE = {
    "memory-decay-edges": {"task": "memory.tasks.decay_edges", "schedule": 6 * 3600},
    "memory-archive-cold": {"task": "memory.tasks.archive_cold_engrams", "schedule": 24 * 3600},
    "memory-prune-recall-events": {
        "task": "memory.tasks.prune_recall_events",
        "schedule": 24 * 3600,
    },
    # networks' retention and held memories nobody reviewed in time (moderation)
    "memory-apply-retention": {"task": "memory.tasks.apply_retention", "schedule": 3600},
    # jobs a lost message or a crashed worker left behind, and memories still without a vector
    "memory-requeue-stale-work": {"task": "memory.tasks.requeue_stale_work", "schedule": 15},
    # recalls' access counts and timings, noted in Redis off the hot path (memory.services.access)
    "memory-flush-access": {"task": "memory.tasks.flush_access", "schedule": 2},
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 10},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
_FAST_HASHER = "django.contrib.auth.hashers.MD5PasswordHasher"  # tests only: speed, not safety
PASSWORD_HASHERS = env_list(
    "PASSWORD_HASHERS",
    [_FAST_HASHER] if PROFILE == "test" else ["django.contrib.auth.hashers.PBKDF2PasswordHasher"],
)

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
# Served by Starlette in config.asgi; set STATIC_ROOT (and run collectstatic) in production.
STATIC_ROOT = env_str("STATIC_ROOT") or None

# Mail: MAIL_BACKEND is console (default), file (into MAIL_FILE_PATH) or smtp (MAIL_HOST, ...).
_MAIL_BACKENDS = {
    "console": "django.core.mail.backends.console.EmailBackend",
    "file": "django.core.mail.backends.filebased.EmailBackend",
    "smtp": "django.core.mail.backends.smtp.EmailBackend",
}
_mail_kind = env_str("MAIL_BACKEND", "console")
if _mail_kind not in _MAIL_BACKENDS:
    raise ConfigError(f"MAIL_BACKEND={_mail_kind!r}: use one of {', '.join(_MAIL_BACKENDS)}")
_mail_options: dict[str, object] = {}
if _mail_kind == "file":
    _mail_options = {"file_path": env_str("MAIL_FILE_PATH", str(VAR_DIR / "mail"))}
elif _mail_kind == "smtp":
    _mail_options = {
        "host": env_str("MAIL_HOST", "localhost"),
        "port": env_int("MAIL_PORT", 587),
        "username": env_str("MAIL_USER"),
        "password": env_str("MAIL_PASSWORD"),
        "use_tls": env_bool("MAIL_USE_TLS", True),
    }
MAILERS = {"default": {"BACKEND": _MAIL_BACKENDS[_mail_kind], "OPTIONS": _mail_options}}
# Only SMTP reaches people; otherwise the dashboard shows invitation links to pass on by hand.
MAIL_DELIVERS = _mail_kind == "smtp"
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Mnemo <noreply@mnemo.local>")

# Embeddings: local all-MiniLM-L6-v2 (ONNX) unless EMBEDDINGS_URL names an OpenAI-compatible API.
EMBEDDINGS_URL = env_str("EMBEDDINGS_URL")
EMBEDDINGS_MODEL = env_str("EMBEDDINGS_MODEL", "all-MiniLM-L6-v2")
EMBEDDINGS_API_KEY = env_str("EMBEDDINGS_API_KEY")
EMBEDDINGS_THREADS = env_int("EMBEDDINGS_THREADS", 2)
# A tenant's LLM provider (extraction) may sit on a loopback or private address only here: on a
# laptop it is the developer's own server; on a shared deployment that would reach our network.
LLM_PRIVATE_HOSTS = env_bool("LLM_PRIVATE_HOSTS", LAPTOP)

# Limits, each answered with a clear JSON error (413 / 429 / 400).
MAX_REQUEST_BYTES = env_int("MAX_REQUEST_BYTES", 10 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BYTES
# Requests per minute per API key (REST and MCP together), by the tenant's plan: a fleet of 50
# agents at one request a second is 3,000 a minute, and one web process serves more than that.
# API_RATE_LIMIT_PER_MINUTE, when set, applies to every plan; a tenant's own
# settings["rate_limit_per_minute"] comes first.
API_RATE_LIMITS = {
    "free": env_int("API_RATE_LIMIT_FREE", 3_000),
    "team": env_int("API_RATE_LIMIT_TEAM", 12_000),
    "enterprise": env_int("API_RATE_LIMIT_ENTERPRISE", 60_000),
}
API_RATE_LIMIT_PER_MINUTE = env_int("API_RATE_LIMIT_PER_MINUTE", 0)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["gateway.rest.auth.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["gateway.rest.auth.HasRequiredScope"],
    "DEFAULT_THROTTLE_CLASSES": [],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["gateway.rest.parsers.BoundedJSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "gateway.rest.errors.exception_handler",
    "UNAUTHENTICATED_USER": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Mnemo API",
    "DESCRIPTION": "Long-term memory for AI agents. Send `Authorization: Bearer <api key>`.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "OAS_VERSION": "3.1.0",  # pydantic contracts describe themselves in JSON Schema 2020-12
    # Enums stay inline where the contracts put them (the default hook renames every enum that
    # two contracts share a field name for, with a warning each time).
    "POSTPROCESSING_HOOKS": ["gateway.rest.schema.describe_path_parameters"],
    "COMPONENT_SPLIT_PATCH": False,  # the *Patch contracts are partial by design
}

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy on every page: scripts only from this origin (no inline script, no
# eval), no plugins, no framing; styles may be inline (the weight bars' CSS variables, htmx's
# indicator style). The live socket connects to this origin.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
if not DEBUG and PUBLIC_URL.startswith("https://"):
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
