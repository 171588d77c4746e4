"""Rekognition RecognizeCelebrities through a botocore Stubber (no sockets)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.stub import Stubber

from tests.support.fake_wire_servers import CelebrityFace, photo_bytes
from visual_degrees.adapters.live.http_retry import RetryPolicy
from visual_degrees.adapters.live.rekognition import RekognitionRecognizer
from visual_degrees.domain.errors import (
    ConfigurationError,
    ProviderError,
    ProviderThrottled,
    TransientProviderError,
)
from visual_degrees.domain.models import BoundingBox, Face, FetchedImage

DATA = photo_bytes("rekognise")
IMAGE = FetchedImage(
    url="https://x/a.jpg", data=DATA, content_type="image/jpeg", sha256=hashlib.sha256(DATA).hexdigest()
)
EXPECTED = {"Image": {"Bytes": DATA}}


@pytest.fixture
def client() -> Any:
    return boto3.client(
        "rekognition",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(retries={"total_max_attempts": 1}),
    )


@pytest.fixture
def stub(client: Any) -> Iterator[Stubber]:
    with Stubber(client) as stubber:
        yield stubber
        stubber.assert_no_pending_responses()


def recognizer(client: Any, sleeps: list[float] | None = None, attempts: int = 3) -> RekognitionRecognizer:
    retry = RetryPolicy(
        max_attempts=attempts,
        base_delay=0.2,
        max_delay=2.0,
        sleep=(sleeps if sleeps is not None else []).append,
    )
    return RekognitionRecognizer(client, retry=retry)


def answer(*faces: CelebrityFace, unrecognized: int = 0) -> dict[str, Any]:
    return {
        "CelebrityFaces": [face.wire() for face in faces],
        "UnrecognizedFaces": [
            {"BoundingBox": {"Width": 0.1, "Height": 0.1, "Left": 0.5, "Top": 0.5}, "Confidence": 99.0}
            for _ in range(unrecognized)
        ],
    }


def test_celebrity_faces_map_to_faces(client: Any, stub: Stubber) -> None:
    # Given Rekognition recognising two people and one stranger
    stub.add_response(
        "recognize_celebrities",
        answer(
            CelebrityFace("Kevin Bacon", "1R7Vj9", 99.2, (0.1, 0.2, 0.3, 0.4)),
            CelebrityFace("Tom Hanks", "2Ab3Cd", 86.5),
            unrecognized=1,
        ),
        EXPECTED,
    )
    # When recognising the image
    faces = recognizer(client).recognize(IMAGE)
    # Then names, ids, MatchConfidence and boxes come through; the unrecognised face has no identity
    assert faces == [
        Face(
            name="Kevin Bacon",
            celebrity_id="1R7Vj9",
            confidence=99.2,
            box=BoundingBox(left=0.1, top=0.2, width=0.3, height=0.4),
        ),
        Face(
            name="Tom Hanks",
            celebrity_id="2Ab3Cd",
            confidence=86.5,
            box=BoundingBox(left=0.1, top=0.1, width=0.2, height=0.3),
        ),
    ]


def test_no_celebrities_is_an_empty_list(client: Any, stub: Stubber) -> None:
    stub.add_response("recognize_celebrities", answer(unrecognized=3), EXPECTED)
    assert recognizer(client).recognize(IMAGE) == []


def test_entries_without_identity_are_skipped(client: Any, stub: Stubber) -> None:
    good = CelebrityFace("Kevin Bacon", "1R7Vj9", 99.0).wire()
    no_id = {**good, "Id": ""}
    no_confidence = {k: v for k, v in good.items() if k != "MatchConfidence"}
    stub.add_response("recognize_celebrities", {"CelebrityFaces": [no_id, no_confidence, good]}, EXPECTED)
    assert [f.celebrity_id for f in recognizer(client).recognize(IMAGE)] == ["1R7Vj9"]


@pytest.mark.parametrize(
    "code", ["ImageTooLargeException", "InvalidImageFormatException", "InvalidParameterException"]
)
def test_rejected_images_are_provider_errors(client: Any, stub: Stubber, code: str) -> None:
    stub.add_client_error(
        "recognize_celebrities", service_error_code=code, http_status_code=400, expected_params=EXPECTED
    )
    with pytest.raises(ProviderError, match=code):
        recognizer(client).recognize(IMAGE)


@pytest.mark.parametrize("code", ["ThrottlingException", "ProvisionedThroughputExceededException"])
def test_throttling_backs_off_and_retries_within_one_logical_call(
    client: Any, stub: Stubber, code: str
) -> None:
    # Given two throttles, then an answer
    stub.add_client_error("recognize_celebrities", service_error_code=code, http_status_code=400)
    stub.add_client_error("recognize_celebrities", service_error_code=code, http_status_code=400)
    stub.add_response("recognize_celebrities", answer(CelebrityFace("Kevin Bacon", "1R7Vj9", 97.0)), EXPECTED)
    sleeps: list[float] = []
    # When recognising once
    faces = recognizer(client, sleeps).recognize(IMAGE)
    # Then it waited twice, growing, and answered
    assert [f.name for f in faces] == ["Kevin Bacon"]
    assert len(sleeps) == 2
    assert 0.1 <= sleeps[0] <= 0.2 < sleeps[1] <= 0.4


@pytest.mark.parametrize("code", ["ThrottlingException", "ProvisionedThroughputExceededException"])
def test_persistent_throttling_ends_throttled(client: Any, stub: Stubber, code: str) -> None:
    for _ in range(3):
        stub.add_client_error("recognize_celebrities", service_error_code=code, http_status_code=400)
    with pytest.raises(ProviderThrottled, match=code):  # refused, so not billed
        recognizer(client).recognize(IMAGE)


def test_persistent_server_errors_end_transient_but_not_throttled(client: Any, stub: Stubber) -> None:
    for _ in range(3):
        stub.add_client_error(
            "recognize_celebrities", service_error_code="InternalServerError", http_status_code=500
        )
    with pytest.raises(TransientProviderError) as failed:
        recognizer(client).recognize(IMAGE)
    assert not isinstance(failed.value, ProviderThrottled)


def test_server_errors_are_retried(client: Any, stub: Stubber) -> None:
    stub.add_client_error(
        "recognize_celebrities", service_error_code="InternalServerError", http_status_code=500
    )
    stub.add_response("recognize_celebrities", answer(), EXPECTED)
    assert recognizer(client).recognize(IMAGE) == []


def test_access_denied_is_a_configuration_error(client: Any, stub: Stubber) -> None:
    stub.add_client_error(
        "recognize_celebrities", service_error_code="AccessDeniedException", http_status_code=400
    )
    with pytest.raises(ConfigurationError, match="permissions"):
        recognizer(client).recognize(IMAGE)


def test_images_rekognition_cannot_take_are_refused_before_paying(client: Any, stub: Stubber) -> None:
    webp = IMAGE.model_copy(update={"content_type": "image/webp"})
    huge = IMAGE.model_copy(update={"data": b"\xff" * (5 * 1024 * 1024 + 1)})
    for image in (webp, huge):
        with pytest.raises(ProviderError):
            recognizer(client).recognize(image)
    # (the stubber would fail on any unexpected call; none was made)


def test_the_lazy_client_honours_boto3s_endpoint_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given the standard per-service endpoint override, as a proxy or a test double would be set
    monkeypatch.setenv("AWS_ENDPOINT_URL_REKOGNITION", "http://127.0.0.1:9999")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    # When the adapter builds its own client
    built = RekognitionRecognizer()._rekognition()
    # Then boto3 picked the override up, and botocore's own retries are off (ours count instead)
    assert built.meta.endpoint_url == "http://127.0.0.1:9999"
    assert built.meta.config.retries["total_max_attempts"] == 1


def test_without_a_region_the_client_cannot_be_built(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_DEFAULT_REGION", "AWS_REGION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    with pytest.raises(ConfigurationError, match="Rekognition"):
        RekognitionRecognizer().recognize(IMAGE)
