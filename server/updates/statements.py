"""What the update and duplicate rules know about one memory's text (server.updates judges pairs).

A memory's text becomes a Statement: its content tokens (stopwords left out), each
classified -- an event (ticket id, commit hash), a value (holds a digit), an
identifier (dotted, slashed, CamelCase, UPPER), code (`...`), a name (capitalised
inside a sentence) or a word -- and stemmed where they are words; the environments it
names (prod / staging / dev / test); whether it says that something changed (a cue:
"now", "moved", "renamed", "instead of", ...) and which old value it names ("instead of
Flux", "STRIPE_SECRET is no longer read"); its negations and its word sequence for
aligning two sentences. No LLM, no embedding: words only.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from functools import lru_cache

from server.frozen import record
from server.guard.lazyre import LazyRe
from server.updates.stemmer import english_stemmer

#: A number written with thousands separators ("€25,000", "1,000,000 rows") is one value.
_GROUPED = r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?\b"
_GROUPED_NUMBER = LazyRe(_GROUPED)
_TOKEN = LazyRe(r"`[^`\n]+`|" + _GROUPED + r"|[\w$#][\w./:@+#*'\-]*[\w%*/]|[\w]")
HEX = LazyRe(r"(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{6,}")
_TICKET = LazyRe(r"[A-Z][A-Z0-9]+-[0-9]+")
_SEPARATED = LazyRe(r"[A-Za-z0-9][._/:@+\-][A-Za-z0-9]")
_HYPHENATED_WORDS = LazyRe(r"[a-z]+(?:-[a-z]+)+")
_CAMEL = LazyRe(r"[a-z][A-Z]")
_PARTS = LazyRe(r"[a-z]+|[0-9]+(?:\.[0-9]+)*")
_SENTENCE_END = LazyRe(r"[.!?;:]\s*$")
_ALIGN_WORD = LazyRe(r"`[^`\n]*`|" + _GROUPED + r"|[\w.:/@+#%*'\-]+")
_ENV_WORD = LazyRe(r"[a-z][a-z\-]*")
#: Words before an event id that date a state rather than record the event ("Since CUR-540 every
#: pod connects via PgBouncer" is about the pods; "CUR-540: ..." is about the ticket). Nor is a
#: ticket that moved something to a new value what the memory is about: "AVO-318 moved us to
#: Python 3.13" states the new version, as "GOD-311: replaced the Bluetooth plugin with flutter_blue_plus
#: 1.34.5" does ("SKUA-409 removed the 32-bit build" records the ticket's work).
_MOVED_TO = frozenset({"moved", "switched", "migrated", "bumped", "upgraded", "changed", "swapped", "replaced"})
_DATED_BY = frozenset({"since", "after", "per", "following"})
#: ... and "As of PLAT-603 the clusters are Crossplane composites" (both words stopwords: no token of the text).
_AS_OF = LazyRe(r"\s*as of\s", re.I)
_DETERMINERS = frozenset({"the", "a", "an", "our", "this", "that", "each", "every"})
#: Words saying that something changed (in the newer memory).
_CUE = LazyRe(
    r"\b(now|no longer|any ?more|moved|moving|renamed|switched|switching|replaced|replacing|migrated|migrating|"
    r"upgraded|upgrading|bumped|raised|lowered|lifted|adopted|adopting|swapped|swapping|ripped|"
    # code moved to another platform ("the function was ported to Netlify Functions v2"); not "tightened":
    # "Tightened the JS budget to 35 kB" superseded the bundle's measured size, another quantity
    r"ported|"
    # a quantity that moved ("the line cap went up to 1 MiB", "retention was reduced to 7 days")
    r"went (?:up|down) to|increased|decreased|reduced|doubled|halved|"
    r"cut|dropped|changed|reversed|instead|abandoned|deprecated|decommissioned|retired|removed|deleted|is gone|"
    # "passed" / "handed" with a recipient ("Ana passed code signing to the release bot"), not "the backtest passed"
    r"are gone|(?:handed|passed)\s+(?:(?!and\b|but\b|then\b)[\w\-]+\s+){0,4}?(?:over\s+)?to|took over|"
    r"became|extended|downsized|shut down|disabled|since the|"
    # "from X to Y" after a verb of change ("went from 90 s to about 8 s"); alone it is a range or a
    # direction ("ranges from 0 ms to 500 ms", "every two hours from 06:00 to 18:00")
    r"(?:went|grew|jumped|fell|shifted|converted|ported|transitioned|updated)\s+(?:\S+\s+){0,6}?from \S+(?: \S+)? to|"
    # a state dated by the ticket or release that changed it: "since CUR-540 every pod ...", "since v2.3"
    # (not by a time: "includes fuel station sales since last year" may be a fact beside the old one)
    r"since (?:[a-z][a-z0-9]*-[0-9]+|v?[0-9]+\.[0-9]+(?:\.[0-9]+)?)|"
    # "From the November 2026 release onward versions are CalVer", "builds from 1.8 on call /v2/..."
    r"from (?:\S+ ){1,4}?onwards?|from v?[0-9]+\.[0-9]+(?:\.[0-9]+)? on|"
    r"decided against|standardi[sz]ing on|going with|no more|these days|as of|extracted|pulled|"
    # what was there before is "the old" one: "...; the old locator-style hostname doesn't route"
    r"(?:the|its|our|their) old|"
    # a new lower bound ("requires macOS 11 or later"), the old way overridden or closed ("manual
    # edits get overwritten", "applies only happen through Atlantis")
    r"or (?:later|newer)|overwritten|"
    r"only (?:happens?|goes|go|runs?|works?) (?:through|via)|"
    # "We left Heroku for Render", "the Rails 7.1 upgrade is done"
    r"left \S+ for|(?:upgrade|migration|move|switch|cut-?over|rewrite) (?:is|was|has been) (?:done|complete|completed|finished))\b",
    re.I,
)
#: Saying that a thing got a new name ("was renamed", "is called pf-render now"): the thing is the same,
#: so its other facts (its toolchain's version, its replica count) stay true under the new name.
_RENAMES = LazyRe(r"\brenam(?:ed|ing)\b|\bnow (?:called|named)\b|\b(?:called|named) \S+ now\b|\bnew name\b", re.I)
#: How often something happens ("nightly", "every two weeks", "twice a week", "on Fridays"): a schedule's
#: value, as much a slot as a number is (a release "every two weeks" -> "monthly" changed one value).
_PERIOD = LazyRe(
    r"\b(?:hourly|daily|nightly|weekly|fortnightly|bi-?weekly|monthly|quarterly|yearly|annually"
    r"|(?:once|twice|\w+ times) (?:a|an|per|each) (?:hour|day|night|week|month|quarter|year)"
    r"|every (?:other |[0-9]+ |one |two |three |four |five |six |ten |twelve )?"
    r"(?:minute|hour|day|night|week|month|quarter|year)s?"
    r"|(?:every|on) (?:mon|tues|wednes|thurs|fri|satur|sun)days?)\b",
    re.I,
)
_PERIOD_DAYS = {"minute": 1 / 1440, "hour": 1 / 24, "day": 1, "night": 1, "week": 7, "month": 30, "quarter": 91,
                "year": 365, "hourly": 1 / 24, "daily": 1, "nightly": 1, "weekly": 7, "fortnightly": 14,
                "biweekly": 14, "bi-weekly": 14, "monthly": 30, "quarterly": 91, "yearly": 365, "annually": 365}
_NEXT_WORD = LazyRe(r"[ \t]+([A-Za-z][\w\-]*)")
#: How many units apart ("every two weeks", "every other week") or times per unit ("twice a week").
_COUNTS = {"once": 1, "twice": 2, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "ten": 10,
           "twelve": 12, "other": 2}
#: A value: a quoted command or one or two tokens, with where it was when that is a number or host
#: ("instead of raw Prometheus on 9090": the old value is Prometheus on 9090).
#: A state that follows a change ("are on 1.29 after last month's upgrade window"); a cue only in a
#: statement of a state: "document X was restored from backup after the migration" is an event.
_AFTER_CHANGE = LazyRe(
    r"\bafter (?:\S+ ){0,3}(?:upgrade|migration|rewrite|rebrand|cut-?over|move|switch|rework|overhaul|redesign|split)s?\b"
    # "After splitting the CDK app into per-concern stacks, tables are declared in ..."
    r"|\bafter (?:splitting|migrating|moving|switching|upgrading|rewriting|consolidating)\b", re.I
)
_VALUE = (r"(`[^`\n]+`|[\w./:@+#\-]+(?:\s+(?!(?:on|at)\s)[\w./:@+#\-]+)?"
          r"(?:\s+(?:on|at)\s+(?:port\s+)?[\w./:@+#\-]*[0-9.][\w./:@+#\-]*)?)")
#: Verbs after which "from X to Y" tells a change, X the old value ("migrated the warehouse from
#: Redshift to Snowflake", "Renamed the Celery component in app.yaml from worker to celery-default");
#: without one it is a range ("Sample rates from 44.1 kHz to 192 kHz are supported").
_FROM_TO_VERB = (r"(?:moved|moving|migrated|migrating|switched|switching|bumped|went|changed|changing|upgraded|"
                 # the present and the imperative, as a decision record words its decision ("switch the hosting of
                 # this service from AWS ECS to GOV.UK PaaS", "change from Standard.rb ... to rubocop-govuk")
                 r"move|migrate|switch|change|upgrade|"
                 r"upgrading|downgraded|raised|lowered|increased|decreased|reduced|cut|dropped|shifted|swapped|"
                 r"renamed|converted|ported|transitioned|updated|grew|jumped|fell|rewrote|rewritten)")
#: "... instead of X", "... from X", "the old X": X is the value being replaced.
_OLD_BEFORE = LazyRe(
    r"\b(?:instead of|rather than|replaced|replacing|dropped|dropping|abandoned|ditched|removed|retired|"
    # ... and as a decision record words it: "the service replaces GOV.UK Verify with ...", "remove the Bullet gem",
    # "Stop using Docker" (issue 32: on public ADRs the later record named so what the earlier decided to use)
    r"replaces|removes?|stop using|stops using|stopped using|"
    r"no longer(?: uses?| on| reads?| in)?|old|off(?!\s+(?:at|to|on|in|by|with|for)\s)|swapped|ripped out)\s+(?:the\s+|raw\s+)?" + _VALUE + r"|\b" + _FROM_TO_VERB
    + r"\s+(?:[^\s;]*[^\s;.]\s+){0,6}?from\s+" + _VALUE + r"\s+to\b"
    r"|\bleft\s+" + _VALUE + r"\s+for\b"
    # "We ripped Retrofit/Moshi out of the Android app"
    r"|\bripped\s+" + _VALUE + r"\s+out\b",
    re.I,
)
#: After the new fact, where a clause or sentence about the old value starts ("...; SendGrid is ...",
#: "... patchy signal. REST is ...").
_AFTER_CLAUSE = r"(?:[;,\u2014]|(?<=[a-z0-9)`]\.))\s+(?:the\s+)?"
#: "X was renamed ...", "X is no longer read": X is the value being replaced.
_OLD_AFTER = LazyRe(
    # A capitalised word before the head is part of the name ("the Breakpad server is off": the
    # old value is "Breakpad server", not just "server").
    # So is a host or domain before it ("the dunlin.internal DNS zone was removed").
    r"((?:[a-z0-9][\w\-]*\.[\w.\-]*[a-z0-9]\s+)?(?-i:[A-Z][\w.\-]*\s+)?(?:`[^`\n]+`|[\w./:@+#\-]+))\s+"
    r"(?:was|were|is|are|has been|have been|got)\s+(?:renamed|replaced|removed|deleted|"
    r"dropped|gone|retired|deprecated|decommissioned|ignored|disabled|frozen|shut down|off|cancelled|paused|"
    r"unmaintained|end-of-life|EOL|"
    r"no longer|being decommissioned|being cancelled|drained|torn down|phased out|sunset)"
    # archived in the past, not "old logs are archived to S3" (how things are kept)
    r"|((?-i:[A-Z][\w.\-]*\s+)?(?:`[^`\n]+`|[\w./:@+#\-]+))\s+(?:was|were|has been|have been|got)\s+archived\b"
    # an old address forwarding to the new one: "next.bittern.dev just 301s there"
    r"|((?:`[^`\n]+`|[\w./:@+#{}\-]+\.[\w./:@+#{}\-]+))\s+(?:just\s+|now\s+|only\s+)?(?:301s|302s|redirects)\b"
    # a person who moved on to other work: "Tomasz is the solver owner these days; Priya went over to
    # the MIS integrations work" names Priya, who owned it
    r"|\b((?-i:[A-Z][a-z]+))\s+(?:went|moved|switched)\s+(?:over\s+|full-time\s+|back\s+)?(?:to|on|onto)\s+"
    r"(?:the\s+)?(?:\S+\s+){0,3}?(?:team|work|squad|project|rewrite|migration|effort|backend|frontend)\b"
    r"|\b((?-i:[A-Z][a-z]+))\s+left\s+(?:the\s+)?(?:team|company)\b"
    # an endpoint answering that it is gone: "/v1/status returns 410", "/v1/ingest has answered 410 Gone"
    r"|((?:`[^`\n]+`|[\w./:@+#{}\-]+))\s+(?:has\s+answered|now\s+returns|returns|answers)\s+(?:410|gone)\b"
    # after the new fact, the old value kept for something narrower: "...; LEDGER_DB_URL is for local
    # dev only", "...; SendGrid is only used for the newsletter", "...; the UART is reserved for the modem"
    r"|" + _AFTER_CLAUSE + r"((?-i:[A-Z][\w.\-]*\s+)?(?:`[^`\n]+`|[\w./:@+#\-]+))\s+(?:is|are)\s+(?:now\s+)?"
    r"(?:only\s+(?:used\s+)?(?:for|in|as|the default)|reserved for|for\s+(?:\S+\s+){1,2}only)"
    # "...; /api/v1/activate only stays up for older installs until March 2027"
    r"|" + _AFTER_CLAUSE + r"((?:`[^`\n]+`|[\w./:@+#{}\-]+))\s+only\s+(?:stays?|remains?)\s+"
    r"(?:up\s+|live\s+|available\s+|around\s+)?(?:for|until)\b",
    re.I,
)

#: A retired value's state that may always have held ("new-checkout is off"): no change cue by itself.
_STATE = LazyRe(r"\b(?:off|paused|frozen|disabled)$", re.I)

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her here
hers herself him himself his how i if in into is it its itself just me more most my myself no nor not of off on
once only or other our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves also s t d ll m re ve it's we're we'll
we've don't doesn't isn't aren't wasn't weren't won't can't i'm i've let's that's there's what's now""".split()
)
#: Environment words: memories about different environments describe different things.
ENVIRONMENTS = {
    "prod": "prod", "production": "prod", "live": "prod", "staging": "staging", "stage": "staging",
    "stg": "staging", "pre-prod": "staging", "preprod": "staging", "dev": "dev", "development": "dev",
    "local": "dev", "locally": "dev", "test": "test", "qa": "test", "sandbox": "test",
}
#: Verbs of events: two sentences built on one ("shipped X", "migration Y added") record two events.
EVENT_VERBS = frozenset(
    "shipped deployed released rolled merged fixed broke introduced added reverted tagged failed crashed restored "
    "corrupted went hit caused opened closed finished completed started promoted".split()
)
NEGATIONS = frozenset(
    "not no never cannot can't don't doesn't isn't aren't won't wasn't weren't without disabled off".split()
)
#: Nouns that make "hit" a thing rather than an event ("the cache hit rate", "hit registration").
_HIT_NOUNS = frozenset("rate rates ratio ratios registration count counts points box boxes miss misses test tests".split())
VALUED = frozenset({"value", "name", "ident", "code"})
#: Words a rewording swaps freely (they never name what a memory is about, nor a value's unit).
FILLER = frozenset("via get gets got use uses using must need needs like always".split())


#: Words before an event verb that make it how things are done ("is deployed by"), not what happened.
_PRESENT = frozenset("is are be being get gets".split())


def _eventful(words: tuple[str, ...], past: bool = False) -> bool:
    """Whether the aligned words are built on an event verb ("shipped", "deployed", "we hit the limit").
    `past`: only one that tells what happened ("went to production", "was deployed"), not how things
    are done ("is deployed by Envoyer", "are shipped to Loki")."""
    return any(w in EVENT_VERBS and not (w == "hit" and i + 1 < len(words) and words[i + 1] in _HIT_NOUNS)
               and not (past and i and words[i - 1] in _PRESENT)
               for i, w in enumerate(words))


def records_event(statement: Statement) -> bool:
    """Whether the memory tells something that happened to one thing it names by its number, version
    or id ("Release v2026.10.3 went to production as deployment #1842"): a record that stays true,
    whatever changes later. ("Jobs run on Celery workers, started with `celery worker`" names none.)"""
    return any(t.kind in ("value", "event") for t in statement.tokens) and _eventful(statement.words, past=True)


_local = threading.local()


def _stemmer():  # type: ignore[no-untyped-def]
    """This thread's stemmer: a stemmer keeps its word in its own fields while it works, so one
    shared by the threads of a server garbles words (IndexError) when two stem at once."""
    found = getattr(_local, "stemmer", None)
    if found is None:
        found = _local.stemmer = english_stemmer()()
    return found


#: Irregular verb forms a suffix stemmer leaves apart ("shown" / "show"): a reworded update says
#: "offers are shown instantly" of "the apps show an offer". Forms that are also common nouns or
#: adjectives in a codebase ("left", "led", "found", "bound", "read", "split", "lost") are left out.
_IRREGULAR = {
    "shown": "show", "kept": "keep", "ran": "run", "built": "build", "rebuilt": "rebuild", "sent": "send",
    "made": "make", "written": "write", "wrote": "write", "rewritten": "rewrite", "rewrote": "rewrite",
    "taken": "take", "took": "take", "given": "give", "gave": "give", "held": "hold", "chosen": "choose",
    "chose": "choose", "driven": "drive", "drove": "drive", "grown": "grow", "grew": "grow", "known": "know",
    "knew": "know", "thrown": "throw", "threw": "throw", "begun": "begin", "began": "begin", "told": "tell",
    "sold": "sell", "paid": "pay", "brought": "bring", "bought": "buy", "caught": "catch", "taught": "teach",
    "meant": "mean", "stood": "stand", "hidden": "hide", "hid": "hide", "forgotten": "forget", "forgot": "forget",
    "spoken": "speak", "spoke": "speak", "ridden": "ride", "rode": "ride", "shut": "shut", "hung": "hang",
    "undone": "undo", "overridden": "override", "overrode": "override", "withdrawn": "withdraw",
}


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    return _stemmer().stemWord(_IRREGULAR.get(word, word))


@record
class Token:
    raw: str
    norm: str  # what two memories compare: a stem for words and names, the lowercase form otherwise
    kind: str  # event (ticket id, hash), value (has a digit), ident, code (`...`), name, word
    parts: tuple[str, ...]  # the words and numbers inside an identifier, value or hyphenated word
    place: bool = False  # written as a path ("dags/", "src/renderer/markdown/")


def _kind(raw: str, sentence_start: bool) -> str:
    if raw.startswith("`"):
        return "code"
    lower = raw.lower()
    if _TICKET.fullmatch(raw) or (HEX.search(lower) and not raw.isdigit()):
        return "event"
    if any(c.isdigit() for c in raw):
        return "value"
    if _SEPARATED.search(raw) and not _HYPHENATED_WORDS.fullmatch(raw):
        return "ident"
    if _CAMEL.search(raw) or (raw.isupper() and len(raw) >= 2):
        return "ident"
    if raw[0].isupper() and not sentence_start:
        return "name"
    return "word"


def tokens(text: str) -> list[Token]:
    """The content tokens of a text (stopwords left out), classified."""
    out: list[Token] = []
    start = True
    for match in _TOKEN.finditer(text):
        raw = match.group(0)
        place = "/" in raw.strip("`") and "://" not in raw  # a path ("dags/", "api/proto/"): a value's slot
        starts = start or bool(_SENTENCE_END.search(text[max(0, match.start() - 3) : match.start()]))
        start = False
        if not raw.startswith("`"):
            raw = raw.strip(".:'-/")
            if raw.endswith(("'s", "’s")):  # a possessive names the same thing ("ledger-core's port")
                raw = raw[:-2]
        if not raw or raw.lower() in STOPWORDS:
            continue
        kind = _kind(raw, starts)
        lower = raw.lower()
        if kind == "code":
            norm = " ".join(raw.strip("`").split()).lower()
        elif kind in ("word", "name") or (kind == "ident" and not _SEPARATED.search(raw)):
            norm = stem(lower) if "-" not in lower else lower
        else:
            norm = lower
        parts: tuple[str, ...] = ()
        if (kind != "word" or "-" in lower) and not _GROUPED_NUMBER.fullmatch(raw):
            found = [stem(p) if p.isalpha() else p for p in _PARTS.findall(norm) if p not in STOPWORDS and len(p) > 1]
            parts = tuple(dict.fromkeys(p for p in found if p != norm))
        out.append(Token(raw, norm, kind, parts, place))
    return out


def _fts_word(token: Token) -> str:
    """How the keyword index knows a token (for its frequency in the thread)."""
    return token.raw.strip("`").lower()


@record
class Statement:
    """What the rules need to know about one memory's text."""

    text: str
    tokens: tuple[Token, ...]
    terms: dict[str, str]  # term -> kind ("part" for a part of an identifier)
    fts: dict[str, str]  # term -> a word the keyword index knows it by
    envs: frozenset[str]
    events: frozenset[str]
    lead_events: frozenset[str]  # events named in its first two tokens: the memory is about that event
    labels: frozenset[str]  # values in a short heading before a colon ("Step 3:", "note 42:"): which record it is
    cue: bool  # says that something changed
    quoted: frozenset[str]  # terms it names as the old value
    #: each old value it names, as its specific tokens (names, identifiers, code, hyphenated words), each with
    #: its parts: an old value is named whole ("instead of GOV.UK Notify" names Notify, not only GOV.UK)
    quoted_names: tuple[tuple[tuple[str, tuple[str, ...]], ...], ...]
    values: frozenset[str]  # terms holding a digit
    slot_values: frozenset[str]  # its values outside events: what a slot can hold (not a hash's digit runs)
    shapes: frozenset[str]  # the shapes of its whole values ("3.12" -> "9.9")
    places: frozenset[str]  # the paths it names
    opening: frozenset[str]  # the terms of its first two tokens (its subject, usually)
    negated: bool  # holds a negation (not, never, don't, without, ...)
    cue_terms: frozenset[str]  # its words that say something changed ("moved"): a verb, not its subject
    renames: bool  # says that something got a new name ("was renamed", "is called X now")
    periods: frozenset[str]  # how often, in days ("every two weeks" -> "14"), outside its subject
    period_terms: frozenset[str]  # the words saying how often: a value, not the subject
    eventful: bool  # built on an event verb ("shipped", "deployed", "added"): records an event, not a state
    narrated: bool  # tells what happened (its main clause in the past tense, no change said): a report
    words: tuple[str, ...]  # the lowercase word sequence, for aligning two sentences
    subject_at: int  # where in `words` its subject starts (after a short heading and a determiner)


def _cued(text: str, align: tuple[str, ...]) -> bool:
    """Whether the text says that something changed. A lone closing "instead" after a negation contrasts
    within the sentence ("Never log full GPS traces; log the shipment id instead"): no change of an
    earlier fact. "after the upgrade" counts only in a statement of a state (not of an event)."""
    found = {m.group(0).lower() for m in _CUE.finditer(text)}
    if found == {"instead"} and any(w in NEGATIONS for w in align):
        found = set()
    return bool(found) or (bool(_AFTER_CHANGE.search(text)) and not _eventful(align))


#: The main clause: the text up to its first sentence or clause end, or a subordinate clause ("... go to
#: osrm-eu since OSRM was containerised": the main clause is a state, what follows tells why).
_CLAUSE = LazyRe(r"[.;:!?](?=\s|$)|\s[\u2014\u2013-]\s|,?\s(?:since|because|after|before|until|when|while|so|but|as|"
                 r"although|though|which|who|where|whereas)\s", re.I)
#: Quoted text (a widget's 'Was this page helpful?', a command): not the sentence's own verbs.
_QUOTED_SPAN = LazyRe(r"`[^`]*`|(?<!\w)'[^'\n]*'(?!\w)|\"[^\"\n]*\"|\u201c[^\u201d]*\u201d|\u2018[^\u2019]*\u2019")
#: Finite verbs that place a clause in the past ("was due to", "were queueing", "had no index", "did not start")
#: or in the present or future ("is", "will", "must", "can"): closed classes of English grammar, not topics.
_PAST_FINITE = frozenset("was were wasn't weren't had hadn't did didn't".split())
_PERFECT = frozenset("has have hasn't haven't".split())
_PRESENT_FINITE = frozenset(
    "is are am isn't aren't will won't shall must should can cannot can't may might do does don't doesn't".split())
#: The speaker as the one who acted ("we decided ...", "we added PostHog", "I moved ..."): a change the team
#: made or chose, a state from then on, however it is told; a report tells what happened to the thing.
_AGENTS = frozenset("we i we've i've we'd i'd".split())


def _narrated(text: str) -> bool:
    """Whether the text tells what happened rather than how things are (issue 32: a report about a subject is
    not a new state of it, and what happened stays true): a main clause whose finite verb is in
    the past ("GOV.UK Forms' first live incident was due to unexpected formatting behaviour", "The container
    has not run smoothly in recent months: ...") with no present or future one, not the speaker's own doing.
    Read from the sentence's form -- tense, mood, who acted -- not from words of a topic: "Checkout moved to
    the Growth team" says that something changed (a cue, decided before this is asked), "Integrations use OAuth2
    ... Static keys were a rotation nightmare" states a state first and tells why after."""
    head, colon, rest = text.partition(": ")
    body = rest if colon and len(head.split()) <= 4 else text  # after a short heading ("Note: ...")
    clause = next((c for c in _CLAUSE.split(_QUOTED_SPAN.sub(" ", body)) if c and c.strip()), "")
    words = [w.strip(".,;:!?()[]\"'`").lower().replace("\u2019", "'") for w in clause.split()]
    words = [w for w in words if w]
    if any(w in _AGENTS for w in words[:3]):
        return False
    past = False
    for i, w in enumerate(words):
        if w in _PRESENT_FINITE:
            return False
        if w in _PAST_FINITE:
            past = True
        elif w in _PERFECT:  # "has not run smoothly", "have started to see": the perfect tells what happened
            following = [x for x in words[i + 1:i + 3] if x not in ("not", "never", "already", "just", "recently")]
            past = past or bool(following and _PARTICIPLE.fullmatch(following[0]))
    return past


#: A past participle after "has" / "have": a regular one, or "been" and the common irregular endings.
_PARTICIPLE = LazyRe(r"[a-z]+(?:ed|en|wn|un|ne)|been|had|got|run|hit|found|seen|made|left|put|set|kept|lost|sent|built")


#: Analyses kept, by the characters of their texts: one of a 32 KB note holds about 1 MB of tokens
#: and words, so a count of entries (8,192 of them) could have held gigabytes of long notes; this
#: keeps thousands of statements, or a few dozen long notes, and costs at most ~35 MB.
ANALYSED_CHARS = 1_000_000
_analysed: OrderedDict[str, Statement] = OrderedDict()
_analysed_chars = 0
_analysed_lock = threading.Lock()


def analyse(text: str) -> Statement:
    """What the rules need to know about a text, kept for the texts compared most recently (the same
    memories are judged write after write, and dedupe compares each with many)."""
    with _analysed_lock:
        found = _analysed.get(text)
        if found is not None:
            _analysed.move_to_end(text)
            return found
    statement = _analyse(text)
    keep(statement)
    return statement


def _analyse(text: str) -> Statement:
    toks = tuple(tokens(text))
    quoted = set()
    quoted_names = []
    by_raw = {t.raw: t for t in toks}
    retired = list(_OLD_AFTER.finditer(text))
    for m in [*_OLD_BEFORE.finditer(text), *retired]:
        value = next(g for g in m.groups() if g)
        quoted.update(t.norm for t in tokens(value))
        quoted.update(p for t in tokens(value) for p in t.parts)
        # as the whole text classifies them ("instead of Flux": Flux is a name there, not a sentence's first word)
        specific = [t for t in (by_raw.get(t.raw, t) for t in tokens(value))
                    if t.kind in ("name", "ident", "code") or "-" in t.norm]
        if specific:
            quoted_names.append(tuple((t.norm, t.parts) for t in specific))
    periods, period_terms = _periods(text)
    lower_words = _ENV_WORD.findall(text.lower())
    align = aligned(text)
    # naming a value as retired says that something changed ("MODEL_VERSION is ignored"); a state
    # that may always have held does not ("Feature flag new-checkout is off in production")
    cue = _cued(text, align) or any(not _STATE.search(m.group(0)) for m in retired)
    return assemble(text, toks, align, dict(
        envs=frozenset(ENVIRONMENTS[w] for w in lower_words if w in ENVIRONMENTS),
        labels=_labels(text),
        cue=cue,
        quoted=frozenset(quoted),
        quoted_names=tuple(quoted_names),
        opening=frozenset(x for t in _untagged(text, toks)[:2] for x in (t.norm, *t.parts)),
        cue_terms=frozenset(t.norm for t in toks if _CUE.fullmatch(t.raw)),
        renames=bool(_RENAMES.search(text)),
        periods=frozenset(periods),
        period_terms=frozenset(period_terms),
        subject_at=_subject_at(text, align),
        narrated=not cue and _narrated(text),
    ))


def aligned(text: str) -> tuple[str, ...]:
    return tuple(w.strip(".,;:!?()").lower() for w in _ALIGN_WORD.findall(text) if w.strip(".,;:!?()"))


def assemble(text: str, toks: tuple[Token, ...], align: tuple[str, ...], read: dict) -> Statement:
    """The statement of these tokens and words, with what was read from the text itself (`read`: the fields
    a stored analysis keeps, _STORED); the rest follows from the tokens and words at once."""
    terms: dict[str, str] = {}
    fts: dict[str, str] = {}
    for t in toks:
        terms.setdefault(t.norm, t.kind)
        fts.setdefault(t.norm, _fts_word(t))
        for p in t.parts:
            terms.setdefault(p, "part")
            fts.setdefault(p, p)
    return Statement(
        text=text,
        tokens=toks,
        terms=terms,
        fts=fts,
        events=frozenset(t.norm for t in toks if t.kind == "event"),
        lead_events=frozenset(t.norm for i, t in enumerate(toks[:2]) if t.kind == "event"
                              and not (i and toks[0].raw.lower() in _DATED_BY) and not (i == 0 and _AS_OF.match(text))
                              and not (i + 1 < len(toks) and toks[i + 1].raw.lower() in _MOVED_TO)),
        values=frozenset(term for term in terms if any(map(str.isdigit, term))),
        slot_values=frozenset(
            x for t in toks if t.kind != "event" for x in (t.norm, *t.parts) if any(map(str.isdigit, x))
        ),
        shapes=frozenset(value_shape(t.norm) for t in toks if t.kind == "value"),
        places=frozenset(t.norm for t in toks if t.place),
        negated=any(w in NEGATIONS for w in align),
        eventful=_eventful(align),
        words=align,
        **read,
    )


#: A note's leading tag, not its subject: "FYI", "Note:", "NB", or a conventional-commit type
#: ("chore(worker): drop reportlab ...", "refactor: move Flyway scripts to ...").
_NOTE_TAG = LazyRe(r"\s*(?:(?:fyi|note|nb|psa|heads[- ]up|update)\b[:,]?|"
                   r"(?:chore|feat|fix|refactor|build|ci|docs|perf|style|test|ops)(?:\([^)]*\))?!?:)\s+", re.I)


def _untagged(text: str, toks: tuple[Token, ...]) -> tuple[Token, ...]:
    """The tokens after a note's leading tag (_NOTE_TAG): where its subject opens ("FYI ledger-consumer
    is on auto.offset.reset=earliest" opens with ledger-consumer, as "The ledger-consumer group uses ..." does)."""
    tag = _NOTE_TAG.match(text)
    return tuple(tokens(text[tag.end():])) if tag else toks


def _periods(text: str) -> tuple[set[str], set[str]]:
    """How often the text says something happens, each in days ("twice a week" -> "3.5"; a weekday by
    its name), and the words saying it. Not a schedule that names a thing ("The weekly report goes to
    Dana" / "The monthly report ...": two reports, not one report's new schedule)."""
    periods: set[str] = set()
    terms: set[str] = set()
    for m in _PERIOD.finditer(text):
        words = m.group(0).lower().split()
        after = _NEXT_WORD.match(text, m.end())
        if len(words) == 1 and after and after.group(1).lower() not in STOPWORDS:
            continue  # "weekly report", "nightly TestFlight builds": what it describes, not when
        periods.add(_days(words))
        terms |= {stem(w) for w in words if w not in STOPWORDS}
    return periods, terms


def _days(words: list[str]) -> str:
    unit = words[-1].rstrip("s") if words[-1] not in _PERIOD_DAYS else words[-1]
    if unit not in _PERIOD_DAYS:
        return unit  # a weekday
    days = _PERIOD_DAYS[unit]
    if words[0] in ("every", "once") and len(words) == 3:
        days *= _COUNTS.get(words[1], 0) or (int(words[1]) if words[1].isdigit() else 1)
    elif words[0] != "every" and len(words) > 1:  # "twice a week", "3 times a day"
        count = _COUNTS.get(words[0]) or (int(words[0]) if words[0].isdigit() else 1)
        days /= count
    return f"{days:g}"


def _subject_at(text: str, align: tuple[str, ...]) -> int:
    """The index in `align` of the sentence's first word after a heading of at most four words
    ("Decision: ...") and a determiner: where its subject starts."""
    head, colon, _ = text.partition(": ")
    at = len([w for w in _ALIGN_WORD.findall(head) if w.strip(".,;:!?()")]) if colon and len(head.split()) <= 4 else 0
    while at < len(align) and align[at] in _DETERMINERS:
        at += 1
    return at


def _labels(text: str) -> frozenset[str]:
    """The values of a heading of at most four words ending in a colon ("Step 3: run the migrations",
    "shared fact 26: the team uses sqlite"): they number a record, they are not a fact's value."""
    head, colon, _ = text.partition(": ")
    if not colon or len(head.split()) > 4:
        return frozenset()
    return frozenset(t.norm for t in tokens(head) if t.kind == "value")


def value_shape(value: str) -> str:
    """A value's shape: each run of digits a 9, each run of letters an a ("3.12" -> "9.9", "512Mi" ->
    "9a", ":7070" and "50051" -> "9"): the kind of value, not its size (a port 7070 becomes 50051)."""
    return re.sub(r"[a-z]+", "a", re.sub(r"[0-9]+", "9", value.lstrip(":")))


def cached(text: str) -> bool:
    """Whether this process holds the text's analysis (analyse costs it nothing)."""
    with _analysed_lock:
        return text in _analysed


def keep(statement: Statement) -> None:
    """Hold a statement read from the store as analyse would hold the one it made."""
    global _analysed_chars
    text = statement.text
    with _analysed_lock:
        if text not in _analysed and len(text) <= ANALYSED_CHARS:
            _analysed[text] = statement
            _analysed_chars += len(text)
            while _analysed_chars > ANALYSED_CHARS:
                oldest, _ = _analysed.popitem(last=False)
                _analysed_chars -= len(oldest)
