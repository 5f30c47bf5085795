"""A record that names the record it replaces: the author's own claim, not a judgement of wording.

Decision records (ADRs, RFCs) and notes kept like them say which earlier record they change: "This supersedes
ADR-4", "Replaces ADR 0004 and ADR 0005", "revisits decision 3", "Status: Superseded by ADR-24", "ADR 20: User
models revisited", or a later record under the same title ("ADR025: Ingress." after "ADR005: Ingress."). The
update rules cannot see it: the two rarely share their words, and two numbered records ("ADR004:" / "ADR024:")
stay two things for rules.different_things, so the linker is never asked (issue 32: on public ADRs link recall
was 1 of 17 for no wrong link). What is read here is the author's claim, so it links (server.linker, with the
usual guard that a report is no new state); without such a claim two numbered records stay two things.

Pure functions over text: which record a memory is (`numbered`, `title`), what it claims (`claims`), and
whether an earlier memory is the one a claim names (`names`). The linker finds the memories to compare (a
keyword search of `search_terms`) in the memory's thread.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from server.frozen import record
from server.updates.statements import stem

#: The kinds of numbered records a reference names. Decision records go by several names ("ADR 4", "decision 4",
#: "DR-4", "record 4"); an RFC, PEP or KEP is its own series. "#12" names a number in any series.
_SERIES = {"adr": "adr", "adrs": "adr", "dr": "adr", "decision": "adr", "decisions": "adr", "record": "adr",
           "records": "adr", "rfc": "rfc", "rfcs": "rfc", "pep": "pep", "peps": "pep", "kep": "kep", "keps": "kep"}
#: ... and a series named as improvement and enhancement proposals are ("BIP 2", "EIP-1283", "CIP-15"): three
#: capitals ending in IP or EP, its own series (the session-38 public set: "BIP 2: ... replaces BIP 1" was not read
#: as a claim, nor "BIP 21: URI Scheme." as the revision of "BIP 20: URI Scheme."). Capitals only: "tip 3", "step 2".
_PROPOSALS = r"(?-i:[A-Z](?:IP|EP))"
_PREFIX = rf"(?:adrs?|dr|decisions?|records?|rfcs?|peps?|keps?|{_PROPOSALS})"
#: A number followed by a unit is an amount, not a record ("the decision 3 weeks ago", "records 5 minutes old").
_NO_UNIT = r"(?!\s*(?:%|ms\b|s\b|secs?\b|seconds?\b|minutes?\b|mins?\b|hours?\b|h\b|days?\b|weeks?\b|months?\b|years?\b))"
#: A reference to a numbered record: "ADR-4", "ADR 0004", "ADR004", "RFC 7", "decision 3", "#12".
_REFERENCE = re.compile(rf"(?<![\w#-])(?:(?P<prefix>{_PREFIX})[\s_#-]*|#\s?)0*(?P<number>\d{{1,6}})(?![\w]|[.,]\d){_NO_UNIT}",
                        re.I)
#: Between references of one list ("ADR 4, ADR 5 and ADR 7", "ADRs 4 & 5"), and a number of the series said once.
_LIST_SEPARATOR = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|&\s*|/\s*)", re.I)
_BARE = re.compile(rf"(?:#\s?)?0*(?P<number>\d{{1,6}})(?![\w]|[.,]\d){_NO_UNIT}")
#: The record a memory is: its number at the very start ("ADR004: ...", "ADR 4. ...", "RFC-7 - ...", "#12: ...",
#: "0004: ..."), before its title.
_HEADING = re.compile(rf"\s*(?:(?P<prefix>{_PREFIX})[\s_#-]*|#\s?)?0*(?P<number>\d{{1,6}})\s*(?:[:.]|\s[-\u2013\u2014])\s+",
                      re.I)
#: Saying that this record replaces another, before the reference ("supersedes ADR-4", "in place of RFC 7").
_CLAIM = re.compile(r"\b(?P<verb>supersed(?:es|e|ing)|replac(?:es|e|ing)|deprecat(?:es|e|ing)|revisit(?:s|ing)?|"
                    r"obsolet(?:es|ing)|overrid(?:es|e|ing)|revers(?:es|e|ing)|revert(?:s|ing)?|amend(?:s|ing)?|"
                    r"in place of|instead of)\b", re.I)
#: Saying that another record replaces this one ("Superseded by ADR-24", "replaced by RFC 9").
_CLAIMED_BY = re.compile(r"\b(?P<verb>superseded|replaced|deprecated|obsoleted|overridden|reversed|reverted|amended)"
                         r"\s+by\b", re.I)
#: Saying, after the reference, that this record changes it ("ADR-4 is superseded", "ADR 4 revisited").
_CLAIM_AFTER = re.compile(r"\s+(?:(?:is|was|has been|are|were|gets|got)\s+(?:now\s+)?)?(?P<verb>superseded|replaced|"
                          r"deprecated|obsolete|revisited|reversed|amended)\b(?!\s+by\b(?!\s+(?:this|the present)\b))",
                          re.I)
#: Words between a claim and its reference that keep it about the whole record ("supersedes the earlier ADR-4",
#: "replaces our decision in RFC 7"); any other word makes it a part of the record ("replaces the nginx proxy
#: of ADR 10": a partial change, no claim over the record).
_FILLER = frozenset("the a an this that these those earlier previous prior older old original first our its their "
                    "existing both all decision decisions record records described made outlined proposed taken "
                    "recorded in of from by and entire whole".split())
#: A negation just before the claim ("does not supersede ADR-4", "without replacing RFC 7").
_NEGATION = frozenset("not never no without don't doesn't didn't isn't wasn't won't n't nor".split())
#: A claim over part of the record ("partially supersedes ADR-4", "amends ADR 7"): the authors themselves leave the
#: earlier record partly in force, a possible update, not a replacement.
_PARTIAL = frozenset("partially partly part amends amend amending amended".split())
#: Where a clause ends: a reference is sought up to it.
_CLAUSE_END = re.compile(r"[.;!?](?=\s|$)|\s[\u2014\u2013-]\s|:\s")
_QUOTED = re.compile(r"\s*(?:\"([^\"\n]{3,120})\"|\u201c([^\u201d\n]{3,120})\u201d|'([^'\n]{3,120})'|"
                     r"\u2018([^\u2019\n]{3,120})\u2019)")
_WORD = re.compile(r"[a-z0-9]+(?:['\u2019-][a-z0-9]+)*", re.I)
#: A record named by a Markdown link, as adr-tools writes a status ("Superseded by [5. Use Y](0005-use-y.md)",
#: "Supersedes [ADR-0002](0002-use-x.md)"): its number from the link's text, else from the file it points to.
_LINKED = re.compile(r"\s*:?\s*\[(?P<text>[^\]\n]{1,160})\]\((?P<target>[^)\s]{1,300})\)(?P<sep>\s*(?:,\s*(?:and\s+)?|and\s+|&\s*))?")
_LINK_TEXT = re.compile(rf"\s*(?:(?P<prefix>{_PREFIX})[\s_#-]*|#\s?)?0*(?P<number>\d{{1,6}})(?!\d)", re.I)
_LINK_FILE = re.compile(r"(?:^|/)0*(?P<number>\d{1,6})[-_.]")
#: Words a title's comparison leaves out.
_TITLE_STOP = frozenset("a an the of for to and in on with use using we will our".split())


@record
class Reference:
    """A numbered record named in a text: its series ("adr", "rfc", ...; None: any, as "#12") and number."""

    series: str | None
    number: int


@record
class Claim:
    """What a memory says of another record: it replaces it (`newer`: this memory is the newer one) or is replaced
    by it; the record by number or by title; `partial` when it changes only part of it (amends, partially)."""

    reference: Reference | None
    title: tuple[str, ...] | None  # a title's words (stems), when named by title
    newer: bool
    partial: bool
    words: str  # the claim as written, for the link's reason
    name: str = ""  # the title as written, when named by title (what a keyword search looks for)


def _series(prefix: str) -> str:
    """The series a record's prefix names ("ADR", "decision" -> "adr"; a proposal series by its own name, "bip")."""
    return _SERIES.get(prefix.lower(), prefix.lower())


def numbered(text: str) -> Reference | None:
    """The record the memory is, by the number it opens with ("ADR004: Tenant Isolation ..."), if any."""
    m = _HEADING.match(text)
    if m is None:
        return None
    prefix = m.group("prefix")
    return Reference(_series(prefix) if prefix else None, int(m.group("number")))


def title(text: str) -> str:
    """The record's title: after its number, up to the first full stop or colon ("ADR004: Tenant Isolation. We
    will ..." -> "Tenant Isolation")."""
    m = _HEADING.match(text)
    rest = text[m.end():] if m else text
    return re.split(r"[.:;](?=\s|$)|\s[\u2014\u2013]\s", rest.strip(), maxsplit=1)[0].strip()


#: A title that states a decision: it opens with an imperative ("Use the Custody API to access NOMIS data",
#: "Replace Sidekiq with Solid Queue") or holds a finite verb ("Allocation API owns allocation data", "Konflux
#: should send cloud events"). Closed classes and the verbs decision records open with, not topics.
_DECIDES = frozenset(
    "use adopt replace move switch migrate build buy host create remove add drop deprecate prefer avoid keep run "
    "deploy send store support start stop separate merge split define generate exclude introduce reintroduce "
    "record manage access get rewrite rename allow require enable disable limit restrict submit annotate "
    "calculate continuously".split())
_FINITE = frozenset("is are was were will won't shall should must can cannot may has have had does do owns uses "
                    "runs we".split())


def title_only(text: str) -> bool:
    """Whether the memory is a numbered record's number and a title that states nothing ("ADR 18: React Context
    API.", "ADR013: Building BOSH releases."): it names a subject and holds no state of it, so only its author's
    claim says a later record replaces it (issue 32: on public ADRs "Moving from React to Preact: ..." was linked
    to "ADR 18: React Context API." as naming React). A title stating a decision ("Use NX") is a state."""
    if numbered(text) is None:
        return False
    m = _HEADING.match(text)
    rest = text[m.end():].strip() if m else text.strip()
    name = title(text)
    words = [w.lower() for w in re.findall(r"[\w'-]+", name)]
    return rest.rstrip(".").strip() == name and bool(words) and words[0] not in _DECIDES \
        and not any(w in _FINITE for w in words)


def title_words(text: str) -> tuple[str, ...]:
    """A title's words as compared: lower case, stemmed, without the words every title uses."""
    return tuple(stem(w.lower()) for w in _WORD.findall(text) if w.lower() not in _TITLE_STOP)


def matches(reference: Reference, other: Reference | None) -> bool:
    """Whether a memory numbered `other` is the record `reference` names (one series, or a series unsaid)."""
    return other is not None and other.number == reference.number and (
        reference.series is None or other.series is None or reference.series == other.series)


def claims(text: str) -> list[Claim]:
    """What the memory says it replaces or is replaced by, as written (see the module's docstring)."""
    found: list[Claim] = []
    for m in _CLAIM.finditer(text):
        if _negated(text, m.start()):
            continue
        partial = m.group("verb").lower().startswith("amend") or _before(text, m.start(), 2) & _PARTIAL != set()
        found += _named_after(text, m.end(), newer=True, partial=partial, verb=m.group(0))
    for m in _CLAIMED_BY.finditer(text):
        if _negated(text, m.start()):
            continue
        partial = m.group("verb").lower().startswith("amend") or _before(text, m.start(), 2) & _PARTIAL != set()
        found += _named_after(text, m.end(), newer=False, partial=partial, verb=m.group(0))
    for m in _REFERENCE.finditer(text):
        after = _CLAIM_AFTER.match(text, m.end())
        if after is None or (m.start() == 0 and numbered(text) is not None) or _negated(text, after.start("verb")):
            continue
        found.append(Claim(_reference(m), None, True, after.group("verb").lower() == "amended",
                           text[m.start():after.end()]))
    revisited = re.search(r"\brevisited\b", title(text), re.I)
    if revisited and not found:
        # "User models revisited, plus WHOIS": the record revisits the one titled so (a title, not a number)
        words = title_words(title(text)[:revisited.start()])
        if words:
            found.append(Claim(None, words, True, False, title(text)[:revisited.end()], title(text)[:revisited.start()]))
    return found


def _named_after(text: str, at: int, newer: bool, partial: bool, verb: str) -> list[Claim]:
    """The records a claim word at `at` names: references right after it (only filler words between), up to
    the clause's end, or a quoted title."""
    linked = _linked(text, at)
    if linked:
        return [Claim(r, None, newer, partial, f"{verb} {shown}") for r, shown in linked]
    end = _CLAUSE_END.search(text, at)
    span = text[at:end.start() if end else len(text)]
    quoted = _QUOTED.match(span)
    if quoted:
        name = next(g for g in quoted.groups() if g)
        words = title_words(name)
        return [Claim(None, words, newer, partial, f"{verb} {quoted.group(0).strip()}", name)] if words else []
    first = _REFERENCE.search(span)
    if first is None or any(w.lower() not in _FILLER for w in _WORD.findall(span[:first.start()])):
        return []
    refs = [_reference(first)]
    pos = first.end()
    while (sep := _LIST_SEPARATOR.match(span, pos)) is not None:
        nxt = _REFERENCE.match(span, sep.end())
        bare = _BARE.match(span, sep.end())
        if nxt is not None:
            refs.append(_reference(nxt))
        elif bare is not None:  # "ADR 4 and 5": the series said once
            refs.append(Reference(refs[-1].series, int(bare.group("number"))))
        else:
            break
        pos = (nxt or bare).end()
    return [Claim(r, None, newer, partial, f"{verb} {span[first.start():pos].strip()}") for r in refs]


def _linked(text: str, at: int) -> list[tuple[Reference, str]]:
    """The records Markdown links right at `at` name (_LINKED; a list of them too), with the link's text."""
    out = []
    while (m := _LINKED.match(text, at)) is not None:
        number = _LINK_TEXT.match(m.group("text")) or _LINK_FILE.search(m.group("target"))
        if number is None:
            break
        prefix = number.groupdict().get("prefix")
        out.append((Reference(_series(prefix) if prefix else None, int(number.group("number"))),
                    m.group("text").strip()))
        if not m.group("sep"):
            break
        at = m.end()
    return out


def _reference(m: re.Match[str]) -> Reference:
    prefix = m.group("prefix")
    return Reference(_series(prefix) if prefix else None, int(m.group("number")))


def _before(text: str, at: int, n: int) -> set[str]:
    return {w.lower().replace("\u2019", "'") for w in _WORD.findall(text[max(0, at - 60):at])[-n:]}


def _negated(text: str, at: int) -> bool:
    """A negation among the three words before `at` ("does not supersede", "without replacing")."""
    words = _before(text, at, 3)
    return bool(words & _NEGATION) or any(w.endswith("n't") for w in words)


def names(claim: Claim, text: str) -> bool:
    """Whether the memory `text` is the record the claim names: by its number, or, when it is a numbered record of a
    series ("ADR 12: ..."), by its title (every word of the title named, or the title holding every word of a name of
    two or more words)."""
    if claim.reference is not None:
        return matches(claim.reference, numbered(text))
    record_ = numbered(text)
    if record_ is None or record_.series is None:
        return False  # by title only a decision record, RFC or the like: "instead of \"npm test\"" names no note
    mine = title_words(title(text))
    if not mine or not claim.title:
        return False
    named = claim.title
    return set(named) == set(mine) or (len(set(named)) >= 2 and set(named) <= set(mine))


def same_title(earlier: str, later: str) -> bool:
    """Whether a later numbered record carries the earlier one's title under another number ("ADR025: Ingress. We
    currently have two ingress systems ..." after "ADR005: Ingress. We shall provide a single load-balancer ..."): a
    decision record revised under its own name. Only for decision records, RFCs and the like -- not "Step 3:" /
    "Step 4:" of a list, which are numbered members, not revisions."""
    a, b = numbered(earlier), numbered(later)
    if a is None or b is None or a.series is None or b.series is None or a.series != b.series or a.number == b.number:
        return False
    mine, theirs = title_words(title(earlier)), title_words(title(later))
    if not mine:
        return False
    if mine == theirs or mine == title_words(base_title(title(later))):
        return True
    # "... v1.0" then "... v2.0", "Metadata ... 1.1" then "... 1.2": one title, a later version of it
    old_version, new_version = _version(title(earlier)), _version(title(later))
    return old_version is not None and new_version is not None and new_version > old_version and \
        title_words(base_title(title(earlier))) == title_words(base_title(title(later)))


#: What a revision adds to its record's title, at its end: a word saying so ("... (Updated)", "... - Revised",
#: "... Rebooted") or a version ("... v2", "... Version 2", "... 1.1"). Not any addition: "Logging (frontend)" after
#: "Logging" is a narrower record, another thing; "OpenAPIv3" is a name, not a version of "OpenAPI".
_REVISED = r"(?:updated|revised|amended|redux|rebooted|second\s+edition)"
_VERSION = r"(?:v|version\s+)?(?P<version>\d{1,3}(?:\.\d{1,3}){0,2})"
_ADDED_MARK = re.compile(rf"(?:\s*[-\u2013\u2014,:]\s*|\s+)[(\[]?\s*(?:{_REVISED}|{_VERSION})\s*[)\]]?\s*$", re.I)
_ADDED_PARENTHESIS = re.compile(r"\s*\((?P<inner>[^()]{1,40})\)\s*$")


def _version(name: str) -> tuple[int, ...] | None:
    """The version a title ends with ("... v1.0.1" -> (1, 0, 1)), if any: a bare number only with a dot ("1.1"), as
    "Step 3" or "BIP 21" is a member, not a version."""
    m = _ADDED_MARK.search(name)
    if m is None or m.group("version") is None:
        return None
    if "." not in m.group("version") and not re.search(r"(?:v|version\s+)\d+\W*$", name, re.I):
        return None
    return tuple(int(n) for n in m.group("version").split("."))


def base_title(name: str) -> str:
    """The title a revision's title adds to: without a trailing revision mark ("Fee Escalation (Updated)", "Fee
    Escalation v2") or a trailing parenthesis spelling out the title's initials ("Concise Transaction Identifier
    (CTID)"); the title itself otherwise. A parenthesis naming something else ("Storage (S3)") keeps it: two things."""
    if _ADDED_MARK.search(name) is not None and (_version(name) is not None or
                                                  _ADDED_MARK.search(name).group("version") is None):
        return _ADDED_MARK.sub("", name).strip() or name
    m = _ADDED_PARENTHESIS.search(name)
    if m is None:
        return name
    head, inner = name[:m.start()].strip(), m.group("inner").strip()
    words = [w.lower() for w in _WORD.findall(head) if w.lower() not in _TITLE_STOP]
    # an acronym of the head: capitals (a plural s aside) holding each word's initial, in order, and drawn from its
    # letters ("CTID" of Concise Transaction IDentifier); "S3", "SSD" after "Storage" name another thing
    acronym = re.fullmatch(r"[A-Z][A-Z0-9]{1,7}s?", inner) is not None
    letters = inner.lower().rstrip("s") if inner.endswith("s") and not inner.isupper() else inner.lower()
    return head if acronym and words and _in_order("".join(w[0] for w in words), letters) \
        and _in_order(letters, "".join(words)) else name


def _in_order(letters: str, text: str) -> bool:
    """Whether every one of the letters is in the text, in their order."""
    rest = iter(text)
    return all(c in rest for c in letters)


def searches(reference: Reference) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Keyword searches, as (any of these words, and every one of those), that find a record numbered so: "ADR004" is
    one word of a keyword index, "ADR 4" and "ADR-0004" two, the number written with 1-4 digits. Each with a word the
    number alone is not (a bare "4" is in thousands of memories of a large thread); a series unsaid ("#12") last,
    by the number alone (the caller bounds it to the newest matches)."""
    digits = tuple(sorted({str(reference.number).zfill(n) for n in range(1, 5)}))
    prefixes = [p for p, s in _SERIES.items() if (reference.series is None or s == reference.series) and not p.endswith("s")]
    if reference.series is not None and not prefixes:  # a proposal series ("bip"): its own name
        prefixes = [reference.series]
    out = [(tuple(p + d for p in prefixes for d in digits), ())]
    out += [(digits, (p,)) for p in prefixes if reference.series is not None]
    if reference.series is None:
        out.append((digits, ()))
    return out


__all__: Sequence[str] = ("Claim", "Reference", "base_title", "claims", "matches", "names", "numbered", "same_title",
                          "searches", "title", "title_only", "title_words")
