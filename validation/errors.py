"""Refusals of the qualification, validation and reference work, with their HTTP status."""

from config.errors import DomainError, NotFound


class NoAttemptLeft(DomainError):
    status = 409
    code = "no_attempt_left"


class AlreadyQualified(DomainError):
    status = 409
    code = "already_qualified"


class TestNotFound(NotFound):
    pass


class NotAllowed(DomainError):
    status = 403
    code = "permission_denied"


class OwnPair(DomainError):
    """Nobody checks or answers their own QA pair."""

    status = 403
    code = "own_pair"


class MissingReason(DomainError):
    status = 400
    code = "invalid"
