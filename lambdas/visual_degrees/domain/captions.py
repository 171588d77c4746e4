"""Reading image titles: who a caption names, whether it shows unnamed people, and which event.

Captions are free information: a search returns a page of results, and every title that names two
people together is a *lead* that one photo may show both. A lead decides where to spend; only a
recognised photo makes a link. Titles come from anywhere (agency captions, page titles), so this is
a heuristic over the common shape "Name, Name and Name <at/on/attend…> <event>" and "…: Name, Name
and others", written for no particular site; a wrong guess costs at most a recognition.
"""

from __future__ import annotations

import re
from functools import lru_cache

from visual_degrees.domain.names import name_key
from visual_degrees.domain.shown_text import link_in

MAX_NAMES = 12  # names read from one title
MAX_NAME_WORDS = 6
_TOKEN = re.compile(r"[\w'’.\-]+|[,;&():/|]", re.UNICODE)
_SEPARATORS = frozenset({",", ";", "&", "(", ")", ":", "/"})
_CONNECTORS = frozenset({"and", "with", "und", "et", "y", "e"})
# Lower-case words that belong inside names ("Ludwig van Beethoven", "Rossy de Palma").
_PARTICLES = frozenset(
    {"de", "van", "von", "der", "den", "da", "del", "della", "di", "du", "la", "le", "bin", "al", "el"}
    | {"dos", "das", "do", "ten", "ter", "st."}
)
# Capitalised words that start a title but are no name ("Actor Tom Hanks", "The cast of …").
_ROLES = frozenset(
    {"actor", "actress", "actors", "actresses", "director", "directors", "singer", "producer", "writer"}
    | {"model", "musician", "comedian", "host", "guest", "guests", "presenter", "star", "stars", "cast"}
    | {"member", "members", "celebrity", "celebrities", "filmmaker", "filmmakers", "co-star", "co-stars"}
    | {"costar", "costars", "nominee", "nominees", "honoree", "honorees"}
)
# Who someone is to the one before, as written in lower case ("Tom Hanks and wife Rita Wilson", "X
# and his daughter Y"); capitalised, such a word starts a film's title ("Brother Bear").
_RELATIONS = frozenset(
    {"his", "her", "their", "wife", "husband", "partner", "girlfriend", "boyfriend", "fiancee", "fiancée"}
    | {"fiance", "fiancé", "son", "daughter", "mother", "father", "brother", "sister", "friend", "friends"}
)
# Whose relation someone is, as news captions write it ("Kevin Bacon's wife Kyra Sedgwick", "Tom Hanks'
# son Chet Hanks"): the possessive ends the first name, the list goes on.
_POSSESSIVE_RELATION = re.compile(
    rf"(?<=\w)['’]s?\s+(?=(?:{'|'.join(sorted(_RELATIONS - {'his', 'her', 'their'}))}|co-?stars?)\b)"
)
# Capitalised words that never start a name ("The cast of …", "At the premiere …").
_LEADING = frozenset({"The", "A", "An", "At", "On", "In", "Of", "For", "During", "From", "To", "By"})
# How agencies say a list of names runs left to right: "(L-R)", "(l to r)", "(from left)", "From left:",
# "Left to right:". A marker, not a person.
_LEFT_TO_RIGHT = re.compile(
    r"\(\s*(?:l\s*(?:-|to)\s*r|r\s*(?:-|to)\s*l|from (?:left|right)|left to right)\s*\.?\s*\)"
    r"|^\s*(?:from (?:left|right)|left to right|l\s*(?:-|to)\s*r)\s*[:,]",
    re.IGNORECASE,
)
# What precedes the names in captions as the web writes them, never a person: an agency's dateline
# ("LOS ANGELES, CA - JUNE 22: Actors …", Getty Images' editorial style), a news site's label
# ("EXCLUSIVE: …", "WATCH: …"), a page's "Photo of …".
_MONTH = r"(?:JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)[A-Z]*\.?"
_DATELINE = re.compile(rf"^[A-Z][A-Z .,'’\-]{{0,60}}?\s[-–—]\s+{_MONTH}\s+\d{{1,2}}(?:,\s*\d{{4}})?\s*:\s*")
_LABEL = re.compile(
    r"^(?:exclusive|watch|photos?|pictures?|video|breaking|update|gallery|in pictures|file)\s*:\s*"
    r"|^(?:photos?|pictures?|images?|portrait)\s+of\s+",
    re.IGNORECASE,
)
# Who took or sells the photo, which pages put after the caption: "(Photo by A B/Getty Images)", "(AP
# Photo/A B)", ". Photo: Getty Images", "Credit: Alamy". The photographer is not in the photo.
_AGENCIES = r"getty|reuters|afp|ap|shutterstock|alamy|wireimage|filmmagic|rex|pa|epa|corbis"
_CREDIT = re.compile(
    # "(Photo by A B/Getty Images)", "(AP Photo/A B)", "(Reuters)"
    rf"\((?:[^()]{{0,80}}?\b(?:photo(?:graph)?s?|credit|{_AGENCIES})\b[^()]{{0,80}}?)\)"
    # the full stop of "… Apollo 13 (1995). (AP Photo/…)", which ends the sentence before the credit
    rf"|(?<=\))\.(?=\s*\([^()]{{0,80}}?\b(?:photo|{_AGENCIES})\b)"
    # ". Photo: Getty Images", " - Photo by A B"
    r"|(?:[.,;|]\s*|\s[-–—]\s*)(?:photo(?:graph)?s?|image|picture|credit)\s*(?:by\b|:)[^:]{0,100}$",
    re.IGNORECASE,
)
# Words a caption's credit or a site leaves that read as a one-word name.
_NOT_PEOPLE = frozenset(
    {"Photo", "Photos", "Credit", "Getty", "Reuters", "AFP", "AP", "Alamy", "Shutterstock", "IMDb", "Guest"}
    | {"WireImage", "FilmMagic", "Zimbio", "Pinterest", "Instagram", "Wikipedia", "Flickr", "EPA"}
)
# Where a person stands, as news captions say it ("Kevin Bacon, left, and Tom Hanks", "Tom Hanks
# (right)"): a place in the list, not prose that ends it.
_POSITION = re.compile(
    r"[,(]\s*(?:far |second from |third from )?(?:left|right|center|centre)\s*(?:[,)]|$)", re.IGNORECASE
)
# A person's age after their name, as tabloids write it ("Kevin Bacon, 64, and Kyra Sedgwick, 57,
# attend …", "Kevin Bacon (64)"): a number in the list, not prose that ends it. Not after a number
# ("Apollo 13, …").
_AGE = re.compile(r"(?<=[\w.])(?<![\d_]),\s*\d{1,3}(?=\s*[,;])|(?<=[\w.])(?<![\d_])\s*\(\d{1,3}\)")
# Whom someone poses with, as agencies write it ("Kevin Bacon (C) poses with Kyra Sedgwick (L) and Tom
# Hanks (R)"): the list goes on. Only before a capital: "X poses with guests" names no one more.
_POSES_WITH = re.compile(r"\s(?:poses?|posing) with (?=[A-Z])")
# What a news agency writes before a role, a nationality ("U.S. actor Tom Hanks", "British actress
# Emma Thompson"): not a name. Roles that are also verbs ("X and Y star in …", "… host …") are not here.
_CREDITED_ROLES = frozenset(
    {"actor", "actress", "actors", "actresses", "director", "directors", "singer", "singers", "producer"}
    | {"writer", "musician", "comedian", "filmmaker", "rapper", "presenter", "comedienne", "screenwriter"}
)
# "… Stock Photos and Pictures": a page's words, not the last name's.
_STOCK = re.compile(r"\bStock (?=(?:Photos?|Pictures|Images|Footage)\b)")
# An unnamed person in a list of names ("X, a guest and Y attend …"): a place in the list, not prose.
# In lower case only: capitalised after a name, Guest is a surname ("Christopher Guest").
_GUEST_IN_LIST = re.compile(r"\b(?:[Aa]n? )?guests?\b")
# Words a page title puts after a name ("Kevin Bacon Photos"): never part of the name.
_PAGE_WORDS = frozenset({"Photos", "Pictures", "Images", "Gallery", "News", "Videos", "Photo", "Editorial"})
# A file's name as its title (Wikimedia Commons: "File:Tom_Hanks_and_Kevin_Bacon_1995.jpg"): its
# extension is no word of the caption, its underscores are spaces.
_FILE_EXTENSION = re.compile(r"\.(?:jpe?g|png|gif|webp|tiff?|svg)$", re.IGNORECASE)
# A headline capitalises every word ("Kevin Bacon And Kyra Sedgwick Attend The Premiere Of …", as news
# sites title their photos), so a capital no longer starts a name. In such a title these words are
# prose, as in lower case: the small words of a sentence and the verbs photo headlines use. Verbs that
# are also surnames are left out ("Don Was", "Sam Georges Said", "Charles Dance", "Cornelia Kiss").
_HEADLINE_WORDS = frozenset(
    {"And", "With", "At", "Of", "The", "In", "On", "For", "To", "A", "An", "During", "From", "By", "As"}
    | {"After", "Before", "Into", "Over", "Is", "Are", "Has", "Have", "Out", "Up", "Together", "Its"}
    | {"His", "Her", "Their", "Others", "Guests"}
)
_CAST_AND_CREW = re.compile(r"\bCast And Crew\b")  # nobody named ("Amanda Crew" is someone)
_A_GUEST = re.compile(r"\bAn? Guest\b")  # "X, A Guest And Y": one unnamed person ("Christopher Guest" stays)
_JOINING = frozenset({"And", "With", "&", ",", "/"})  # what joins a headline's names
_HEADLINE_VERBS = frozenset(
    {"Attend", "Attends", "Attending", "Arrive", "Arrives", "Arriving", "Pose", "Poses", "Posing"}
    | {"Celebrate", "Celebrates", "Celebrating", "Reunite", "Reunites", "Reunited", "Talk", "Talks"}
    | {"Says", "Share", "Shares", "Joins", "Visits", "Perform", "Performs", "Performing", "Walks", "Steps"}
    | {"Speaks", "Accepts", "Hosts", "Meets", "Greets", "Debuts", "Promote", "Promotes", "Promoting"}
    | {"Teams", "Chats", "Enjoy", "Enjoys", "Supports", "Unveil", "Unveils", "Stuns", "Dazzles", "Shines"}
    | {"Honored", "Honoured", "Kisses", "Hugs", "Marries", "Married", "Spotted", "Wins"}
)
# Where a headline's photo was taken, after its first word ("X On The Set Of T (1995)", "X Attends A
# Press Event For …"; "On The Waterfront (1954)" is a film's title).
_PLACE_IN_HEADLINE = re.compile(
    rf"(?<=\S) (?:At|On|During|{'|'.join(sorted(_HEADLINE_VERBS))}) (?:The|A|An|At|On|With) "
)
# Any of those words after another word: a title without one is no headline, found without reading
# its words one by one.
_HEADLINE_SIGNAL = re.compile(rf"(?<=\S) (?:{'|'.join(sorted(_HEADLINE_WORDS | _HEADLINE_VERBS))})\b")
# A title in capitals ("TOM HANKS AND RITA WILSON AT THE PREMIERE OF ELVIS") is read as a headline:
# each word is written with one capital first.
_WORD = re.compile(r"[^\W\d_]+")
# Words saying the photo shows a crowd: more faces nobody names than "a guest" or "guests" promise.
_CROWD_WORDS = "others|crowd|cast and crew|and the cast"
_CROWD = re.compile(rf"\b({_CROWD_WORDS})\b", re.IGNORECASE)
_GUESTS = re.compile(r"\bguests\b", re.IGNORECASE)
# Words saying the photo shows more people than it names: a crowd's, guests, friends, fans.
_UNNAMED = re.compile(rf"\b(a guest|guests|friends?|and family|fans|{_CROWD_WORDS})\b", re.IGNORECASE)
_EVENT_STOP = frozenset(
    {"the", "a", "an", "of", "at", "on", "for", "and", "with", "premiere", "red", "carpet", "set", "press"}
    | {"event", "photocall", "cast", "its", "guest", "guests", "others", "other", "stage", "during"}
    | {"after", "party", "charity", "festival", "jury", "in", "to", "attend", "attends", "arrive"}
    | {"arrives", "pose", "poses", "together", "photo", "photos", "image", "getty", "images"}
)


def _capitalised(token: str) -> bool:
    word = token.strip("'’\"")
    return bool(word) and (word[0].isupper() or (word[0].isdigit() and any(c.isalpha() for c in word)))


@lru_cache(maxsize=65_536)
def names_in_title(title: str) -> tuple[str, ...]:
    """The people a title names, in its order: runs of capitalised words (with name particles) in
    the part that names people, which is the title's start up to its first plain word, and a list
    after a last colon ("The cast of X: A, B and others")."""
    text = _POSSESSIVE_RELATION.sub(", ", _LEFT_TO_RIGHT.sub(" ", caption_text(title)))
    text = _POSES_WITH.sub(", ", _AGE.sub("", _STOCK.sub("", text)))
    text = _GUEST_IN_LIST.sub(",", _POSITION.sub(",", text))
    head, colon, tail = text.rpartition(":")
    parts = [head, tail] if colon and "(" not in tail else [text]
    found: list[str] = []
    for part in parts:
        run: list[str] = []
        for match in _TOKEN.finditer(part):
            if len(found) >= MAX_NAMES:
                return tuple(found)  # enough: a title naming thousands is read no further
            token = match.group()
            low = token.lower()
            if token in _SEPARATORS or low in _CONNECTORS:
                _close(run, found)
            elif (low in _ROLES or token in _RELATIONS) and not run:
                continue  # "Actor Tom Hanks", "The cast of …", "… and wife Rita Wilson"
            elif (token in _PAGE_WORDS and run) or token == "|":
                break  # "Kevin Bacon Photos", "… | Getty Images": a page's words, the names end there
            elif len(run) == 1 and token.strip("'’.").isdigit():
                run.clear()  # "Apollo 13 premiere: …": one word and a number is a title, not a person
                break
            elif (_capitalised(token) and (run or token not in _LEADING)) or (run and low in _PARTICLES):
                run.append(token)
            elif not run and token in _LEADING:
                continue
            elif run and len(run) <= 2 and token in _CREDITED_ROLES:
                run.clear()  # "U.S. actor Tom Hanks": a nationality before a role, not a name
            else:
                break  # the first plain word ends the names
        _close(run, found)
    return tuple(found[:MAX_NAMES])


def _headline(text: str) -> bool:
    """Is `text` written as a headline, every word capitalised ("Tom Hanks And Rita Wilson Attend The
    Premiere")? No word of two letters or more starts in lower case before its place ("At The …",
    which may name a film "Der Himmel über Berlin"), but a name's particle; and after its first word
    it has a photo headline's verb or two of a sentence's small words. A page title naming a person
    ("Kevin Bacon Photos") has neither; a film's title and its year, with no names joined, no verb
    and no place, are left as written."""
    if not _HEADLINE_SIGNAL.search(text):
        return False
    tokens = _TOKEN.findall(text)
    words = [word for word in tokens if word[0].isalpha()]
    place = _PLACE_IN_HEADLINE.search(text)
    before_place = _TOKEN.findall(text[: place.start()]) if place else tokens
    if len(words) < 3 or any(_lower_case(word) for word in before_place):
        return False
    joined = any(t in _JOINING or t in _HEADLINE_VERBS for t in tokens)
    if _EVENT_END.search(text) and not joined and not place:
        return False  # "Return Of The Jedi (1983) - Photo Gallery": a film's title, written so
    verbs = sum(word in _HEADLINE_VERBS for word in words[1:])
    small = sum(word in _HEADLINE_WORDS for word in words[1:])
    return verbs >= 1 or small >= 2  # one small word may be a name's ("Larry The Cable Guy Photos")


def _lower_case(word: str) -> bool:
    return word[0].isalpha() and word[0].islower() and len(word) > 1 and word not in _PARTICLES


def caption_text(title: str) -> str:
    """The caption in a title, without what wire services and sites put round it (a dateline, a
    news label, "Photo of", a credit), and in a sentence's case if written as a headline."""
    text = _FILE_EXTENSION.sub("", title).replace("_", " ") if _FILE_EXTENSION.search(title) else title
    return sentence_cased(without_credit(_LABEL.sub("", without_dateline(text), count=1)))


@lru_cache(maxsize=65_536)
def sentence_cased(text: str) -> str:
    """A headline's names, and the words that end them, as a sentence writes them: "Kevin Bacon And
    Kyra Sedgwick Attend The Premiere Of Footloose" is "Kevin Bacon and Kyra Sedgwick attend the
    Premiere Of Footloose", in each part a colon ends. The rest is left as written (it may be an
    event's name); a title in capitals is read as a headline ("TOM HANKS AND RITA WILSON AT …" as "Tom
    Hanks and Rita Wilson at …"); any other text is returned as it is."""
    if text.isupper() and len(text.split(maxsplit=3)) > 3:  # every letter a capital: a headline
        text = _WORD.sub(lambda word: word.group()[0] + word.group()[1:].lower(), text)
    if not _headline(text):
        return text
    return ":".join(_names_sentence_cased(part) for part in text.split(":"))


def _names_sentence_cased(part: str) -> str:
    part = _CAST_AND_CREW.sub("Cast and crew", _A_GUEST.sub("a guest", part))
    tokens = list(_TOKEN.finditer(part))
    pieces: list[str] = []
    done = 0
    name_words = 0  # of the name being read
    ended = role = False
    for index, match in enumerate(tokens):
        token = match.group()
        after = tokens[index + 1].group() if index + 1 < len(tokens) else ""
        prose = token in _HEADLINE_WORDS or (token in _HEADLINE_VERBS and _ends_name(name_words, after))
        if ended and not prose:
            break  # the names and the words that end them are read: the rest is as written
        if role and token in _LEADING:
            role = False  # "Actor The Byrds": a name's own first word
            name_words = 1
        elif prose and index > 0 and tokens[index - 1].group() not in _SEPARATORS:
            # a part's or a list item's first word stays: "At the Oscars", "X, The Rock and Y"
            pieces += [part[done : match.start()], token.lower()]
            done = match.end()
            ended = ended or token in _HEADLINE_VERBS or (name_words > 0 and token.lower() not in _CONNECTORS)
            name_words = 0
        elif not prose and not name_words and token.lower() in _ROLES:  # "Actor X"; "Kim Director"
            role, name_words = True, 0
            continue
        elif not prose and _capitalised(token):
            name_words += 1
        elif not prose:
            name_words = 0
        role = False
    return "".join(pieces) + part[done:]


def _ends_name(name_words: int, after: str) -> bool:
    """Does a headline's verb end the name before it? After two words or more ("Tom Hanks Talks …"),
    or fewer ("Madonna Performs At …", "… And A Guest Pose On …") where a sentence's small word
    follows; never last or before a page's words ("Jesse Merle Speaks - Fan Gallery" is a name)."""
    if not after.strip("'’\"")[:1].isalnum() or after in _PAGE_WORDS:
        return False
    return name_words >= 2 or after in _HEADLINE_WORDS


def without_credit(title: str) -> str:
    """`title` without who took or sells the photo ("(Photo by A B/Getty Images)")."""
    return _CREDIT.sub(" ", title).strip()


def without_dateline(title: str) -> str:
    """`title` without an agency's dateline ("LOS ANGELES, CA - JUNE 22: "), whose place and date
    name no one and no event."""
    return _DATELINE.sub("", title, count=1)


def _close(run: list[str], found: list[str]) -> None:
    """End a run of name words: keep it as a name if it reads as one."""
    while run and run[-1] in _PARTICLES:  # a trailing lower-case particle is prose ("… de")
        run.pop()
    if run and len(run[-1]) > 3 and run[-1].count(".") == 1 and run[-1].endswith("."):
        # "… and Tom Hanks." ends a sentence; "Jr." and "D.A." are how the name is written
        run[-1] = run[-1][:-1]
    if run and len(run) <= MAX_NAME_WORDS and (len(run) > 1 or len(run[0].strip("'’")) > 2):
        name = " ".join(run)
        if name not in found and name not in _NOT_PEOPLE and link_in(name) is None:  # "Evil.ru" is no one
            found.append(name)
    run.clear()


@lru_cache(maxsize=65_536)
def people_in_title(title: str) -> tuple[tuple[str, str], ...]:
    """names_in_title as (person key, name as written), without repeats or blank keys."""
    found: dict[str, str] = {}
    for name in names_in_title(title):
        key = name_key(name)
        if key and key not in found:
            found[key] = name
    return tuple(found.items())


def keys_in_title(title: str) -> tuple[str, ...]:
    """The person keys (name_key) of the people a title names."""
    return tuple(key for key, _ in people_in_title(title))


@lru_cache(maxsize=65_536)
def shows_unnamed(title: str) -> bool:
    """Does the caption say the photo shows people it does not name ("and a guest", "and others")?"""
    return _UNNAMED.search(title) is not None


@lru_cache(maxsize=65_536)
def unnamed_faces(title: str) -> int:
    """How many faces the caption says it does not name, as a rank: 2 a crowd ("cast and crew",
    "… and others"), 1 guests, 0 one guest or none."""
    if _CROWD.search(title):
        return 2
    return 1 if _GUESTS.search(title) else 0


@lru_cache(maxsize=65_536)
def event_words(title: str) -> frozenset[str]:
    """The words that tell which event a photo is from: the title without its names and without the
    words every caption uses ("premiere", "red carpet", …)."""
    text = caption_text(title)
    for name in names_in_title(title):
        text = text.replace(name, " ")
    words = re.findall(r"[^\W_]+", text.casefold())
    return frozenset(w for w in words if w not in _EVENT_STOP and len(w) > 1)


def same_event(a: frozenset[str], b: frozenset[str]) -> bool:
    """Do two sets of event words (event_words) name the same event? At least half the words of the
    shorter one, and at least one."""
    if not a or not b:
        return False
    shared = len(a & b)
    return shared >= 1 and shared * 2 >= min(len(a), len(b))


# Where the event starts in a caption, most specific first: "at the premiere of X (1995)", "The cast
# of X (1995) at its premiere", "on the set of X", then any "at the X (1995)".
_EVENT_START = (
    re.compile(r"\b(?:premiere of|set of|press event for|photocall for|cast of)\s+", re.IGNORECASE),
    re.compile(r"\b(?:(?:charity|press) event|premiere) (?:at|during) the\s+", re.IGNORECASE),
    re.compile(r"\b(?:at|during) (?:the|an?)\s+", re.IGNORECASE),
)
_EVENT_END = re.compile(r"\((?:1[89]|20)\d\d[^()]{0,8}\)")  # "(1995)", "(1978 I)"
_EVENT_TEXT = re.compile(r"[\w'’&.,:!?\- ()]+")
MAX_EVENT_LENGTH = 120


@lru_cache(maxsize=65_536)
def event_in_title(title: str) -> str | None:
    """The event a caption names, as written with its year ("Apollo 13 (1995)"), to search for its
    other photos; None when the title names no dated event in plain words."""
    head, colon, tail = title.rpartition(":")
    text = head if colon and "(" not in tail else title
    for start in _EVENT_START:
        for match in start.finditer(text):
            # An event is at most MAX_EVENT_LENGTH characters: read no further for its year, or a
            # title saying "at the" thousands of times would be read to its end thousands of times.
            event = dated_event(text[match.end() : match.end() + MAX_EVENT_LENGTH + 1])
            if event:
                return event
    return None


def dated_event(text: str) -> str | None:
    """`text` up to its first year ("Apollo 13 (1995)"), if that is plain words of at most
    MAX_EVENT_LENGTH characters: an event the run may search for. None otherwise."""
    end = _EVENT_END.search(text)
    if end is None:
        return None
    event = text[: end.end()].strip()
    return event if 0 < len(event) <= MAX_EVENT_LENGTH and _EVENT_TEXT.fullmatch(event) else None
