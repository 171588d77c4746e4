"""The two photo webs a sandbox can be: `realistic` (the default: results look like real image search)
and `clean` (every photo on one page, captioned by who is in it: kinder than the web).

Both draw the same photos of people together from one world and seed; the realistic web adds solo
portraits and publishes photos on pages that name some of their people, or none, under other titles
(pages.py). Their identities differ, so evidence found on one is never used on the other.
"""

from __future__ import annotations

from dataclasses import dataclass

from visual_degrees_tools.sandbox.pages import DEFAULT_PAGES, PageParameters
from visual_degrees_tools.sandbox.photos import DEFAULT_PHOTOS, PhotoParameters
from visual_degrees_tools.sandbox.photoweb import PhotoWeb
from visual_degrees_tools.sandbox.world import World
from visual_degrees_tools.sandbox_options import DEFAULT_WEB, WEB_NAMES, WebName, web_name

__all__ = ["DEFAULT_WEB", "WEBS", "WEB_NAMES", "WebModel", "WebName", "photo_web", "web_name"]


@dataclass(frozen=True)
class WebModel:
    photos: PhotoParameters
    pages: PageParameters | None  # None: one page per photo


# Red-carpet coverage is mostly solo frames of each arriving name (docs/sandbox.md): the realistic
# web draws 1.5 solo portraits per log2(events) per event where the clean one draws 0.3. The
# photos of people together are the same in both (portraits are drawn first, one draw a person).
REALISTIC_PHOTOS = PhotoParameters(portrait_base=0.1, portrait_per_star=3.0)

WEBS: dict[WebName, WebModel] = {
    "clean": WebModel(DEFAULT_PHOTOS, None),
    "realistic": WebModel(REALISTIC_PHOTOS, DEFAULT_PAGES),
}


def photo_web(world: World, seed: int = 0, web: WebName = DEFAULT_WEB) -> PhotoWeb:
    """The photo web of `world` and `seed`, clean or realistic."""
    model = WEBS[web_name(web)]
    return PhotoWeb(world, seed, photos=model.photos, pages=model.pages)
