from config.errors import DomainError


class ScreenInUse(DomainError):
    status = 409
    code = "screen_in_use"


class NotYourScreen(DomainError):
    status = 403
    code = "not_your_screen"
