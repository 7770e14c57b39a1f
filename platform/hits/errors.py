from config.errors import DomainError, NotFound


class NotEligible(DomainError):
    status = 403
    code = "not_eligible"


class NotYourAssignment(DomainError):
    status = 403
    code = "not_your_assignment"


class NotAllowed(DomainError):
    status = 403
    code = "permission_denied"


class AssignmentClosed(DomainError):
    """The assignment was already submitted, returned, expired or judged."""

    status = 409
    code = "assignment_closed"


class BatchNotOpen(DomainError):
    status = 409
    code = "batch_not_open"


class NoTaskAvailable(DomainError):
    status = 409
    code = "no_task_available"


class InvalidDecision(DomainError):
    status = 400
    code = "invalid"


class AssignmentNotFound(NotFound):
    pass


class BatchNotFound(NotFound):
    pass
