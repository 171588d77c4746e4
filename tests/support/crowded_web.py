"""The largest verified graph the budgets allow, as a photo web: every search brings back as many
photos as asked for, each of the person searched for with eleven people never seen before (12 faces,
66 proven pairs a photo). Names are long, and so are URLs and captions, so a run's events are as
large as its budgets can make them. Nobody is ever photographed with B: the run ends on a budget
with every pair it recognised in its graph."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from visual_degrees.domain.models import BoundingBox, Face, FetchedImage, ImageHit

FACES_PER_PHOTO = 12
NAME_LENGTH = 100  # characters of each display name (names and person keys both travel in events)
URL_PAD = "/" + "p" * 300


def long_name(n: int) -> str:
    base = f"Maximiliana Featherstonehaugh-Worthington {n:05d} "
    return (base + "of the Northern Isles and the Lesser Saltmarsh " * 3)[:NAME_LENGTH].strip()


@dataclass
class CrowdedWeb:
    person_a: str = field(default_factory=lambda: long_name(0))
    person_b: str = field(default_factory=lambda: long_name(99_999))
    people: int = 0
    photos: dict[str, list[Face]] = field(default_factory=dict)
    known: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.known = [self.person_a, self.person_b]

    def search(self, query: str, count: int) -> list[ImageHit]:
        about = next((name for name in reversed(self.known) if name in query), self.person_a)
        hits = []
        for _ in range(count):
            url = f"https://images.example.org/{len(self.photos):06d}{URL_PAD}.jpg"
            faces = [Face(name=about, celebrity_id=f"id-{about}", confidence=99.0)]
            for _ in range(FACES_PER_PHOTO - 1):
                self.people += 1
                name = long_name(self.people)
                self.known.append(name)
                box = BoundingBox(left=0.1, top=0.2, width=0.05, height=0.07)
                faces.append(Face(name=name, celebrity_id=f"id-{name}", confidence=97.5, box=box))
            self.photos[url] = faces
            caption = f"{about} with friends at the gala " * 6
            hits.append(ImageHit(image_url=url, page_url=url.replace(".jpg", ".html"), title=caption))
        return hits

    def fetch(self, url: str) -> FetchedImage:
        data = url.encode()
        return FetchedImage(
            url=url, data=data, content_type="image/jpeg", sha256=hashlib.sha256(data).hexdigest()
        )

    def recognize(self, image: FetchedImage) -> list[Face]:
        return list(self.photos[image.url])
