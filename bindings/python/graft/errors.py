"""graft.errors: the exceptions Graft raises for runtime failures.

Every failure reported by the C library arrives as an OpError subclass chosen by its status
code (the C message is the exception's message, `code` the C status name). Misuse of the Python
API itself raises TypeError / ValueError / KeyError as TensorFlow does.
"""


class OpError(Exception):
    """A failure reported by Graft's runtime (the C API)."""

    c_code = -1

    def __init__(self, message, code=None):
        super().__init__(message)
        self.message = message
        self.code = code if code is not None else self.c_code

    @property
    def error_code(self):
        return self.code


class UnknownError(OpError):
    c_code = -1


class InvalidArgumentError(OpError, ValueError):
    c_code = -2


class NotFoundError(OpError):
    c_code = -3


class AlreadyExistsError(OpError):
    c_code = -4


class OutOfRangeError(OpError):
    c_code = -7


class ResourceExhaustedError(OpError):
    c_code = -8


class FailedPreconditionError(OpError):
    c_code = -9


class UnimplementedError(OpError):
    c_code = -10


class InternalError(OpError):
    c_code = -11


class DataLossError(OpError):
    c_code = -12


class UnavailableError(OpError):
    c_code = -13


class CancelledError(OpError):
    c_code = -14


class DeadlineExceededError(OpError):
    c_code = -15


# C status code -> exception class (GRAFT_EDTYPE and GRAFT_ESHAPE are invalid arguments).
_BY_CODE = {
    -1: UnknownError,
    -2: InvalidArgumentError,
    -3: NotFoundError,
    -4: AlreadyExistsError,
    -5: InvalidArgumentError,
    -6: InvalidArgumentError,
    -7: OutOfRangeError,
    -8: ResourceExhaustedError,
    -9: FailedPreconditionError,
    -10: UnimplementedError,
    -11: InternalError,
    -12: DataLossError,
    -13: UnavailableError,
    -14: CancelledError,
    -15: DeadlineExceededError,
}


def _from_c(code, message):
    """Called by the SWIG module for a failed C call: the exception to raise."""
    cls = _BY_CODE.get(code, UnknownError)
    return cls(message, code)


def exception_type_from_error_code(code):
    return _BY_CODE.get(code, UnknownError)
