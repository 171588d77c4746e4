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

from visual_degrees_tools.sandbox.pages import NOBODY, SITE_POPULARITY, fame_popularity
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
        self.table = web.pages
        self._fame = [fame_popularity(f) for f in range(max(web.world.fame) + 1)]

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
        keywords, site, photo_of, agency_named = table.keywords, table.site, table.photo, table.agency_named
        fame, fame_score = world.fame, self._fame
        first_person, people = web.photo_start, web.photo_people
        scored = []
        for page, mask in masks.items():
            in_title = titles.get(page, 0).bit_count()
            where = site[page]
            about = subject[page]
            if about == NOBODY:
                about = people[first_person[photo_of[page]]]
            score = (
                NAME_IN_TEXT * mask.bit_count()
                + KEYWORD * (keywords[page] & wanted).bit_count()
                + SITE_POPULARITY[where]
                + fame_score[fame[about]]
                + jitter(page, seed)
            )
            if in_title:
                held = len(agency_named[page]) if page < photos else 1  # a copy's title: its subject
                score += NAME_IN_TITLE * in_title + FOCUS / held
            scored.append((score, -page))
        best = heapq.nlargest(count, scored)
        return [-negated for _, negated in best]
