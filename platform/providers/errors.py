from config.errors import DomainError, NotFound


class NotSetUp(NotFound):
    """The batch does not exist, or is not set up for the provider the worker came from."""

    code = "provider_not_set_up"


class BadArrival(DomainError):
    """The provider's parameters are missing or not in the form the provider uses."""

    status = 400
    code = "bad_provider_parameters"


class SessionMismatch(DomainError):
    """The parameters name a worker, submission or study that does not match what is on record."""

    status = 409
    code = "provider_session_mismatch"


class ProviderUnreachable(Exception):
    """A provider's API did not answer (refused, timed out): the call is recorded as failed."""
