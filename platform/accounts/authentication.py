import contextlib
import logging
import pickle
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache, RedisSerializer
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.utils import timezone
from redis.exceptions import RedisError
from rest_framework import authentication, exceptions

from config.cache import redis_client

from .models import ApiToken, User, digest_token

logger = logging.getLogger(__name__)

# Writing last_used_at on every call would turn each read into a write.
LAST_USED_RESOLUTION = timedelta(minutes=1)

# A found token is kept in the cache with its user, so that a call costs one cache read
# (together with the address's failure count) instead of a query. Revoking or deleting a
# token and saving its user drop the entry at once (``forget_tokens``); the timeout
# bounds anything changed behind the ORM's back (a queryset ``update()``, a raw script).
TOKEN_CACHE_SECONDS = 60
TOKEN_CACHE_PREFIX = "trailmark:api-token:v1:"


class TokenFailures(exceptions.Throttled):
    default_detail = "Too many failed API token checks from this address. Wait before trying again."
    default_code = "too_many_failures"


def _failures_key(request):
    # Failed token checks are counted per address.
    return f"trailmark:token-failures:{request.META.get('REMOTE_ADDR', '')}"


def _cache_key(digest):
    return TOKEN_CACHE_PREFIX + digest


def _user_key(digest):
    # The token's user id beside it, as a plain number: what the write throttle's counter
    # is named by, read in the same round trip (``counted_credentials``).
    return TOKEN_USER_PREFIX + digest


TOKEN_USER_PREFIX = "trailmark:api-token-user:v1:"


def forget_tokens(*digests):
    """Drops cached tokens, so the next call with them reads the database."""
    if digests:
        cache.delete_many([key for digest in digests for key in (_cache_key(digest), _user_key(digest))])


# In one round trip: the address's failed checks, the cached token and its user; and,
# when both are there and the address is under its limit, the call counted in the
# user's write-throttle window (what ``WriteThrottle`` does on its own otherwise).
_CHECK_AND_COUNT = """
local failures = redis.call('GET', KEYS[1])
local token = redis.call('GET', KEYS[2])
local user = redis.call('GET', KEYS[3])
local count = false
if token and user and tonumber(failures or '0') < tonumber(ARGV[1]) then
    local key = ARGV[2] .. user .. ':' .. ARGV[3]
    count = redis.call('INCR', key)
    if count == 1 then
        redis.call('EXPIRE', key, ARGV[4])
    end
end
return {failures, token, count}
"""
_SERIALIZER = RedisSerializer()
_scripts = {}


class ApiTokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>`` against the user's named, revocable API tokens."""

    keyword = "Token"

    def authenticate(self, request):
        parts = authentication.get_authorization_header(request).split()
        if not parts or parts[0].lower() != self.keyword.lower().encode():
            return None  # not a token call: the session's turn
        failures_key = _failures_key(request)
        digest = digest_token(parts[1].decode(errors="replace")) if len(parts) == 2 else ""
        # One round trip for both: the address's failures and the token, if cached.
        found = cache.get_many([failures_key, _cache_key(digest)])
        if (found.get(failures_key) or 0) >= settings.TOKEN_FAILURE_LIMIT:
            raise TokenFailures(settings.TOKEN_FAILURE_WINDOW_SECONDS)
        try:
            cached = _unpickled(found.get(_cache_key(digest)))
            if cached is not None:
                return self._use(cached, digest)
            return super().authenticate(request)
        except exceptions.AuthenticationFailed:
            # Guessing tokens costs a wait: failures per address are counted for a window.
            if not cache.add(failures_key, 1, timeout=settings.TOKEN_FAILURE_WINDOW_SECONDS):
                with contextlib.suppress(ValueError):  # the window ended meanwhile
                    cache.incr(failures_key)
            raise

    def cached_credentials(self, request):
        """``(user, token)`` for a token call whose token is in the cache and whose address
        is under its failure limit, in the one cache read; None for anything else, which
        ``authenticate`` answers (a refusal, a token read from the database). Nothing is
        counted: a None leaves the call as it came."""
        digest = self._presented_digest(request)
        if digest is None:
            return None
        failures_key = _failures_key(request)
        found = cache.get_many([failures_key, _cache_key(digest)])
        if (found.get(failures_key) or 0) >= settings.TOKEN_FAILURE_LIMIT:
            return None
        cached = _unpickled(found.get(_cache_key(digest)))
        return None if cached is None else self._use(cached, digest)

    def counted_credentials(self, request, throttle):
        """``cached_credentials`` and ``throttle.allow_request`` (a ``WriteThrottle``) in
        one Redis round trip: ``(user, token, allowed)``, or None as ``cached_credentials``
        gives it (nothing counted then). Without Redis, the two calls one after the other."""
        digest = self._presented_digest(request)
        if digest is None:
            return None
        if not isinstance(caches["default"], RedisCache):
            credentials = self.cached_credentials(request)
            if credentials is None:
                return None
            request.user, request.auth = credentials
            return (*credentials, throttle.allow_request(request, None))
        window = throttle.window()
        keys = [cache.make_key(key) for key in (_failures_key(request), _cache_key(digest), _user_key(digest))]
        arguments = [settings.TOKEN_FAILURE_LIMIT, window.prefix, window.number, window.keep_seconds]
        try:
            failures, found, count = _check_and_count()(keys=keys, args=arguments)
        except RedisError as error:
            logger.warning("Cached token check skipped, Redis unreachable: %s", error)
            return None
        if failures is not None and _SERIALIZER.loads(failures) >= settings.TOKEN_FAILURE_LIMIT:
            return None
        cached = _unpickled(None if found is None else _SERIALIZER.loads(found))
        if cached is None:
            return None
        user, token = self._use(cached, digest)
        if count is None:  # cached without its user id (by an earlier version): counted apart
            request.user, request.auth = user, token
            return user, token, throttle.allow_request(request, None)
        return user, token, count <= window.allowed

    def _presented_digest(self, request):
        """The digest of the token the call presents (``Authorization: Token <key>``), or
        None if it presents none in that form."""
        parts = authentication.get_authorization_header(request).split()
        if len(parts) != 2 or parts[0].lower() != self.keyword.lower().encode():
            return None
        return digest_token(parts[1].decode(errors="replace"))

    def authenticate_credentials(self, key):
        digest = digest_token(key)
        try:
            token = ApiToken.objects.select_related("user").get(digest=digest)
        except ApiToken.DoesNotExist:
            token = None
        if token is None or not token.is_active:
            raise exceptions.AuthenticationFailed("Invalid or revoked API token.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("This account is disabled.")
        return self._use(token, digest, fresh=True)

    def _use(self, token, digest, *, fresh=False):
        now = timezone.now()
        stale = token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION
        if stale:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
            token.last_used_at = now
        if stale or fresh:
            cache.set_many(
                {_cache_key(digest): pickle.dumps(token), _user_key(digest): token.user_id}, timeout=TOKEN_CACHE_SECONDS
            )
        return token.user, token


def _check_and_count():
    """The ``_CHECK_AND_COUNT`` script on the cache's Redis (sent by its digest, and
    loaded again if Redis lost it)."""
    client = redis_client(cache)
    script = _scripts.get(id(client))
    if script is None:
        script = _scripts[id(client)] = client.register_script(_CHECK_AND_COUNT)
    return script


def _unpickled(value):
    # Stored pickled by hand: an entry written by an older version of the models reads
    # as a miss instead of failing the call.
    if value is None:
        return None
    try:
        return pickle.loads(value)  # noqa: S301 (our own cache, written above)
    except Exception:  # noqa: BLE001
        logger.info("Dropped an unreadable cached API token.")
        return None


def _forget_now_and_on_commit(digests):
    # Again once the change commits: a call in between could have cached the old row.
    forget_tokens(*digests)
    transaction.on_commit(partial(forget_tokens, *digests))


def _forget_token(sender, instance, **kwargs):
    _forget_now_and_on_commit([instance.digest])


def _forget_users_tokens(sender, instance, update_fields=None, **kwargs):
    if update_fields is not None and set(update_fields) <= {"last_login"}:
        return  # logging in changes nothing a token call reads
    _forget_now_and_on_commit(list(ApiToken.objects.filter(user_id=instance.pk).values_list("digest", flat=True)))


post_save.connect(_forget_token, sender=ApiToken, dispatch_uid="accounts.forget_token_saved")
post_delete.connect(_forget_token, sender=ApiToken, dispatch_uid="accounts.forget_token_deleted")
post_save.connect(_forget_users_tokens, sender=User, dispatch_uid="accounts.forget_users_tokens")
