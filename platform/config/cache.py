"""Django's Redis cache, made to degrade to a miss when Redis cannot be reached: a cache
is an optimisation, and no request should fail because it is down."""

import logging

from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


class FailSoftRedisCache(RedisCache):
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

    def incr(self, key, delta=1, version=None):
        return self._soft("incr", 0, key, delta, version)

    def touch(self, key, timeout=None, version=None):
        return self._soft("touch", False, key, timeout, version)
