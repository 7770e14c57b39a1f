"""The base of every domain error: services raise these, the API and the UI render them."""


class DomainError(Exception):
    """A refusal the user can act on. ``status`` is the HTTP status the API answers with."""

    status = 400
    code = "invalid"

    def __init__(self, message, *, code=None):
        super().__init__(message)
        self.message = message
        if code:
            self.code = code


class NotFound(DomainError):
    status = 404
    code = "not_found"
