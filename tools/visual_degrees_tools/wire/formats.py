"""Documents in the providers' wire formats: Brave's image-search answer, Rekognition's celebrity
faces and its errors (AWS JSON 1.1, so botocore raises the usual ClientError codes)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from visual_degrees_tools.wire.server import Reply, json_reply


@dataclass(frozen=True)
class FakeHit:
    image_url: str
    page_url: str = ""
    title: str = ""


def brave_document(query: str, hits: Sequence[FakeHit]) -> dict[str, Any]:
    """An image-search answer in Brave's shape."""
    results = []
    for hit in hits:
        host = urlsplit(hit.page_url or hit.image_url).hostname or ""
        results.append(
            {
                "type": "image_result",
                "title": hit.title,
                "url": hit.page_url,
                "source": host,
                "page_fetched": "2026-01-01T00:00:00Z",
                "thumbnail": {"src": "https://imgs.search.brave.com/thumb", "width": 200, "height": 150},
                "properties": {
                    "url": hit.image_url,
                    "placeholder": "https://imgs.search.brave.com/placeholder",
                    "width": 320,
                    "height": 240,
                },
                "meta_url": {"scheme": "https", "netloc": host, "hostname": host, "path": "/"},
                "confidence": "high",
            }
        )
    return {
        "type": "images",
        "query": {"original": query, "spellcheck_off": True, "show_strict_warning": False},
        "results": results,
        "extra": {"might_be_offensive": False},
    }


@dataclass(frozen=True)
class CelebrityFace:
    name: str
    id: str
    confidence: float
    box: tuple[float, float, float, float] = (0.1, 0.1, 0.2, 0.3)  # left, top, width, height

    def wire(self) -> dict[str, Any]:
        left, top, width, height = self.box
        return {
            "Urls": [],
            "Name": self.name,
            "Id": self.id,
            "Face": {
                "BoundingBox": {"Width": width, "Height": height, "Left": left, "Top": top},
                "Confidence": 99.9,
                "Landmarks": [],
                "Pose": {"Roll": 0.0, "Yaw": 0.0, "Pitch": 0.0},
                "Quality": {"Brightness": 80.0, "Sharpness": 90.0},
            },
            "MatchConfidence": self.confidence,
            "KnownGender": {"Type": "Male"},
        }


def rekognition_error(code: str, status: int) -> Reply:
    return json_reply(
        status,
        {"__type": f"com.amazonaws.rekognition#{code}", "Message": f"fake {code}"},
        "application/x-amz-json-1.1",
        **{"x-amzn-ErrorType": f"{code}:", "x-amzn-RequestId": "fake-request"},
    )
