"""CelebrityRecognizer over the photo web: the photo's true cast seen through the noise model.

The photo is read from the image bytes (the id the renderer embeds), never from the URL, so a
photo reached through two URLs gets the same answer. Every face the model recognises is returned,
whatever its confidence; lookalikes carry the other person's name and celebrity id.
"""

from __future__ import annotations

from visual_degrees.domain.errors import ProviderError, ProviderThrottled
from visual_degrees.domain.models import Face, FetchedImage
from visual_degrees_tools.sandbox.provider import WebProvider
from visual_degrees_tools.sandbox.render import photo_boxes, photo_id_in

MAX_IMAGE_BYTES = 5 * 1024 * 1024  # RecognizeCelebrities' limit for image bytes


class SandboxRecognizer(WebProvider):
    def recognize(self, image: FetchedImage) -> list[Face]:
        self.calls += 1
        if self.faults.strikes("recognize_throttle", image.sha256):
            self.clock.advance(self.latencies.throttled)
            raise ProviderThrottled("recogniser throttled (ThrottlingException)")
        self.clock.advance(self.latencies.recognize)
        if len(image.data) > MAX_IMAGE_BYTES:
            raise ProviderError("image is larger than 5 MB (ImageTooLargeException)")
        photo_id = photo_id_in(image.data)
        photo = self.web.photo_index(photo_id) if photo_id else None
        if photo is None:
            raise ProviderError("not an image the sandbox recogniser can read (InvalidImageFormatException)")
        world = self.web.world
        boxes = photo_boxes(self.web, photo)
        return [
            Face(
                name=world.name(s.shown_as),
                celebrity_id=world.celebrity_id(s.shown_as),
                confidence=s.confidence,
                box=boxes[s.position],
            )
            for s in self.web.sightings(photo)
        ]
