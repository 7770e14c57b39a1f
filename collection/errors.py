from config.errors import DomainError


class ScreenInUse(DomainError):
    status = 409
    code = "screen_in_use"


class NotYourScreen(DomainError):
    status = 403
    code = "not_your_screen"


class NotYourTrace(DomainError):
    status = 403
    code = "not_your_trace"


class TraceFinished(DomainError):
    status = 409
    code = "trace_finished"


class MissingSteps(DomainError):
    status = 409
    code = "missing_steps"


class NotATraceBatch(DomainError):
    status = 400
    code = "invalid"
