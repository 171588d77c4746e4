"""Amazon Rekognition RecognizeCelebrities (image bytes) behind CelebrityRecognizer.

The client is built lazily with plain `boto3.client("rekognition", config=...)` (LazyClient), so
boto3's standard endpoint settings (`AWS_ENDPOINT_URL_REKOGNITION`, `AWS_ENDPOINT_URL`, profiles) apply
untouched. botocore's own retries are off: throttling is retried here, with the same bounded
policy as every other adapter, and counts as one logical call for the budget.
"""

from __future__ import annotations

from typing import Any

from visual_degrees.adapters.aws.clients import LazyClient
from visual_degrees.adapters.live.http_retry import RetryPolicy, aws_call
from visual_degrees.domain.errors import ProviderError
from visual_degrees.domain.models import BoundingBox, Face, FetchedImage
from visual_degrees.settings import REKOGNITION_MAX_IMAGE_BYTES

_TRANSIENT = {
    "ThrottlingException",
    "ProvisionedThroughputExceededException",
    "InternalServerError",
    "ServiceUnavailableException",
    "LimitExceededException",
}
_CONFIGURATION = {
    "AccessDeniedException",
    "UnrecognizedClientException",
    "InvalidSignatureException",
    "ExpiredTokenException",
    "IncompleteSignature",
    "MissingAuthenticationTokenException",
}
_ACCEPTED_TYPES = {"image/jpeg", "image/png"}


class RekognitionRecognizer:
    def __init__(
        self,
        client: Any | None = None,
        *,
        max_attempts: int = 3,
        region: str | None = None,
        connect_timeout: float = 5.0,
        read_timeout: float = 15.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        self._clients = LazyClient(
            "rekognition",
            client,
            region=region,
            label="Rekognition",
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            retries={"total_max_attempts": 1},
        )
        self._retry = retry or RetryPolicy(max_attempts=max_attempts)

    def _rekognition(self) -> Any:
        return self._clients.get()

    def recognize(self, image: FetchedImage) -> list[Face]:
        if image.content_type not in _ACCEPTED_TYPES:
            raise ProviderError(f"Rekognition takes JPEG or PNG, not {image.content_type}")
        if len(image.data) > REKOGNITION_MAX_IMAGE_BYTES:
            raise ProviderError(
                f"image is {len(image.data)} bytes; Rekognition takes at most {REKOGNITION_MAX_IMAGE_BYTES}"
            )
        client = self._rekognition()
        answer = self._retry.run(lambda: _call(client, image.data), what="Rekognition RecognizeCelebrities")
        return faces_from_answer(answer)

    def probe(self, invalid_image: bytes) -> str:
        """Doctor check: send an image Rekognition refuses as invalid. That refusal comes only after
        authentication and authorisation succeeded, and nothing is recognised (or billed)."""
        client = self._rekognition()
        try:
            self._retry.run(lambda: _call(client, invalid_image), what="Rekognition RecognizeCelebrities")
        except ProviderError as exc:
            if "Invalid" in exc.message:
                return "reachable, credentials accepted"
            raise
        return "reachable, credentials accepted"


def _call(client: Any, data: bytes) -> dict[str, Any]:
    # ImageTooLargeException, InvalidImageFormatException, InvalidParameterException...: rejected
    return aws_call(
        lambda: client.recognize_celebrities(Image={"Bytes": data}),
        service="Rekognition",
        transient=_TRANSIENT,
        configuration=_CONFIGURATION,
        refused="our credentials ({code}): check the role's permissions",
        rejected="the image",
    )


def faces_from_answer(answer: Any) -> list[Face]:
    """CelebrityFaces -> Face (name, id, MatchConfidence, BoundingBox). UnrecognizedFaces carry no
    identity and are dropped; entries without a name or id cannot be pinned and are skipped."""
    if not isinstance(answer, dict):
        raise ProviderError("Rekognition answer is not an object")
    faces: list[Face] = []
    for celebrity in answer.get("CelebrityFaces") or []:
        if not isinstance(celebrity, dict):
            continue
        name, celebrity_id = celebrity.get("Name"), celebrity.get("Id")
        confidence = celebrity.get("MatchConfidence")
        if not name or not celebrity_id or not isinstance(confidence, int | float):
            continue
        face = celebrity.get("Face")
        box = face.get("BoundingBox") if isinstance(face, dict) else None
        box = box if isinstance(box, dict) else {}
        faces.append(
            Face(
                name=str(name),
                celebrity_id=str(celebrity_id),
                confidence=max(0.0, min(100.0, float(confidence))),
                box=BoundingBox(
                    left=_fraction(box.get("Left")),
                    top=_fraction(box.get("Top")),
                    width=_fraction(box.get("Width")),
                    height=_fraction(box.get("Height")),
                ),
            )
        )
    return faces


def _fraction(value: Any) -> float:
    return float(value) if isinstance(value, int | float) else 0.0
