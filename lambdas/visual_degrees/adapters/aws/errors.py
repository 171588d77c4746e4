"""botocore failures as domain errors: what a caller may retry, what is misconfiguration, what is not
worth retrying. Messages name the operation and AWS's error code, never request data."""

from __future__ import annotations

from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, NoRegionError

from visual_degrees.domain.errors import (
    ConfigurationError,
    ProviderError,
    TransientProviderError,
    VisualDegreesError,
)

_TRANSIENT = {
    "ThrottlingException",
    "Throttling",
    "TooManyRequestsException",
    "LimitExceededException",
    "InternalServerError",
    "InternalFailure",
    "ServiceUnavailable",
    "ServiceUnavailableException",
}
_CONFIGURATION = {
    "AccessDeniedException",
    "AccessDenied",
    "ForbiddenException",
    "UnrecognizedClientException",
    "InvalidSignatureException",
    "ExpiredTokenException",
    "ResourceNotFoundException",
    "StateMachineDoesNotExist",
    "InvalidArn",
}


def error_code(err: ClientError) -> str:
    return str(err.response.get("Error", {}).get("Code", "Unknown"))


def domain_error(err: Exception, service: str, operation: str) -> VisualDegreesError:
    """The domain exception for a failed AWS call (raise it `from None`: tracebacks stay in AWS's land)."""
    if isinstance(err, ClientError):
        code = error_code(err)
        message = f"{service} {operation} failed: {code}"
        if code in _TRANSIENT:
            return TransientProviderError(message)
        if code in _CONFIGURATION:
            return ConfigurationError(message)
        return ProviderError(message)
    if isinstance(err, NoCredentialsError | NoRegionError):
        return ConfigurationError(f"{service} {operation}: {type(err).__name__}")
    if isinstance(err, BotoCoreError):
        return TransientProviderError(f"{service} {operation} failed: {type(err).__name__}")
    return ProviderError(f"{service} {operation} failed")
