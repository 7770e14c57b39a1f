"""Django's Redis cache, made to degrade to a miss when Redis cannot be reached: a cache
is an optimisation, and no request should fail because it is down."""

import logging

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


class ReusedClients(RedisCacheClient):
    """Django's Redis cache client, keeping one ``redis.Redis`` per connection pool where
    Django builds a new one (and its table of response callbacks) for every call: the
    token check and the throttle make two calls on every API write. The clients are
    thread-safe; their connections come from the pool as before."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class FailSoftRedisCache(RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ReusedClients

    def _soft(self, name, fallback, *args, **kwargs):
        try:
            return getattr(super(), name)(*args, **kwargs)
        except RedisError as error:
            logger.warning("Cache %s skipped, Redis unreachable: %s", name, error)
            return fallback

    def get(self, key, default=None, version=None):
        return self._soft("get", default, key, default, version)

    def set(self, key, value, timeout=None, version=None):
        return self._soft("set", None, key, value, timeout, version)

    def add(self, key, value, timeout=None, version=None):
        return self._soft("add", False, key, value, timeout, version)

    def delete(self, key, version=None):
        return self._soft("delete", False, key, version)

    def get_many(self, keys, version=None):
        return self._soft("get_many", {}, keys, version)

    def set_many(self, data, timeout=None, version=None):
        return self._soft("set_many", [], data, timeout, version)

    def delete_many(self, keys, version=None):
        return self._soft("delete_many", None, keys, version)

    def incr(self, key, delta=1, version=None):
        return self._soft("incr", 0, key, delta, version)

    def touch(self, key, timeout=None, version=None):
        return self._soft("touch", False, key, timeout, version)


_redis_clients = {}


def redis_client(cache):
    # Django's Redis cache builds a new client object (and its table of response
    # callbacks) for every call; one per process and server does, pooled and thread-safe.
    server = cache._cache._servers[0]
    if server not in _redis_clients:
        _redis_clients[server] = cache._cache.get_client(write=True)
    return _redis_clients[server]
