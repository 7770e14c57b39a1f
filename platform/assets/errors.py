"""Why an upload was refused. Each is a 4xx with its own code (or a 503 to retry later);
the message says what to do."""

from config.errors import DomainError


class ImageRefused(DomainError):
    status = 400
    code = "invalid_image"


class EmptyFile(ImageRefused):
    code = "empty_file"


class FileTooLarge(ImageRefused):
    code = "file_too_large"


class UploadTooLarge(FileTooLarge):
    """The request body is over the cap: refused before (or while) it is read."""

    status = 413


class LengthRequired(DomainError):
    """An upload without a usable Content-Length: its size cannot be checked before reading."""

    status = 411
    code = "length_required"


class NotAnImage(ImageRefused):
    code = "not_an_image"


class UnsupportedFormat(ImageRefused):
    code = "unsupported_format"


class TruncatedImage(ImageRefused):
    code = "truncated_image"


class TooManyPixels(ImageRefused):
    code = "too_many_pixels"


class SideTooLong(ImageRefused):
    code = "side_too_long"


class AspectTooExtreme(ImageRefused):
    code = "aspect_too_extreme"


class DecodedTooLarge(ImageRefused):
    code = "decoded_too_large"


class AnimatedImage(ImageRefused):
    code = "animated_image"


class DecodersBusy(DomainError):
    """Every decode slot of this process stayed taken for the whole wait. The upload is
    fine: the client should send it again after ``retry_after`` seconds (the API says so
    in ``Retry-After``)."""

    status = 503
    code = "busy"

    def __init__(self, message, *, retry_after):
        super().__init__(message)
        self.retry_after = retry_after


class IdempotencyKeyInvalid(DomainError):
    code = "invalid_idempotency_key"


class IdempotencyKeyReused(DomainError):
    """The key was already used, within its day, for another kind of request."""

    status = 422
    code = "idempotency_key_reused"
