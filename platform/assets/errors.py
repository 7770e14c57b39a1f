"""Why an upload was refused. Each is a 400 with its own code; the message says what to do."""

from config.errors import DomainError


class ImageRefused(DomainError):
    status = 400
    code = "invalid_image"


class EmptyFile(ImageRefused):
    code = "empty_file"


class FileTooLarge(ImageRefused):
    code = "file_too_large"


class NotAnImage(ImageRefused):
    code = "not_an_image"


class UnsupportedFormat(ImageRefused):
    code = "unsupported_format"


class TruncatedImage(ImageRefused):
    code = "truncated_image"


class TooManyPixels(ImageRefused):
    code = "too_many_pixels"


class AnimatedImage(ImageRefused):
    code = "animated_image"
