"""How the realistic web's engine ranks pages for a query: by what each page's text says, never by
who is in its photo (it cannot see faces), then by how busy the page is.

The query's names and dated event titles are found as the clean engine finds them (ranking.py).
Candidates are the pages whose text names any of them, and the pages of a named event that name it.
Score, per page:

- 100 per query name its text names (100 for the event): pages naming every name come first;
- 20 per query name in its title, and 8 divided by the names its title holds when it holds one of
  them: a title about that person alone ranks above one naming four people (length normalisation);
- 10 per query keyword its text holds ("premiere", "red carpet", "cast", "event", "with");
- popularity: the site (person pages and news above agencies, galleries last) and the fame of the
  page's subject, up to +8;
- jitter 0-6 per (seed, query, page): everything else an engine weighs.
"""

from __future__ import annotations

import heapq
from array import array

from visual_degrees_tools.sandbox.pages import popularity
from visual_degrees_tools.sandbox.photoweb import PhotoWeb
from visual_degrees_tools.sandbox.ranking import (
    MAX_QUERY_LENGTH,
    Ranker,
    jitter,
    query_keywords,
    query_seed,
    query_words,
)

NAME_IN_TEXT = 100.0
NAME_IN_TITLE = 20.0
FOCUS = 8.0
KEYWORD = 10.0


class PageRanker(Ranker):
    def __init__(self, web: PhotoWeb) -> None:
        super().__init__(web)
        assert web.pages is not None, "a page ranker needs a realistic web"
        table = self.table = web.pages
        # What never changes with the query: each page's popularity, and how many names its title holds.
        self._page_popularity = array("d", (popularity(web, page) for page in range(table.count)))
        self._title_names = bytearray(
            min(255, len(table.agency_named[page])) if page < web.photo_count else _SUBJECT_IN_TITLE[site]
            for page, site in enumerate(table.site)
        )

    def rank(self, query: str, count: int) -> list[int]:
        """Indices of the best `count` pages for `query`."""
        keys, events = self._found(query)
        if not (keys or events) or count <= 0:
            return []
        web, table = self.web, self.table
        world, photos, subject = web.world, web.photo_count, table.subject
        masks: dict[int, int] = {}
        titles: dict[int, int] = {}  # the query names each page's title holds, as bits
        for bit, key in enumerate(keys):
            flag = 1 << bit
            for person in world.by_key[key]:
                for page in table.named_in[person]:
                    masks[page] = masks.get(page, 0) | flag
                    # an agency page's title is its caption; a news or person page's names its subject
                    if page < photos or subject[page] == person:
                        titles[page] = titles.get(page, 0) | flag
        if events:
            flag = 1 << len(keys)
            start, has_event = table.copy_start, table.has_event
            for event in events:
                photos_of = web.photos_of_event(event)
                for page in (*photos_of, *range(start[photos_of.start], start[photos_of.stop])):
                    if has_event[page]:
                        masks[page] = masks.get(page, 0) | flag

        words = query_words(query[:MAX_QUERY_LENGTH])
        wanted = query_keywords(words)
        seed = query_seed(web.seed, words)
        keywords, fame_and_site, title_names = table.keywords, self._page_popularity, self._title_names
        scored = []
        for page, mask in masks.items():
            in_title = titles.get(page, 0).bit_count()
            score = (
                NAME_IN_TEXT * mask.bit_count()
                + (NAME_IN_TITLE * in_title + FOCUS / title_names[page] if in_title else 0.0)
                + KEYWORD * (keywords[page] & wanted).bit_count()
                + fame_and_site[page]
                + jitter(page, seed)
            )
            scored.append((score, -page))
        best = heapq.nlargest(count, scored)
        return [-negated for _, negated in best]


# How many names a copy's title holds, by Site (agency, news, person page, gallery): a news or
# person page names its subject, a gallery nobody (an agency page's count is its caption's).
_SUBJECT_IN_TITLE = (0, 1, 1, 0)
