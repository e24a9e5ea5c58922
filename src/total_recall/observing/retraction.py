"""The owner taking a rule back, and notes that stop being current because of it.

The observer reads each owner message's own sentences (not a paste, a command or an injected block) for
the shapes a person takes something back in:
- explicitly, naming what: "forget what I said about the Friday freeze", "scratch that about pnpm",
  "ignore my earlier rule about force pushes", "disregard the note on squash merges", "scratch the squash
  merge rule", "never mind about the VPN", "I take back what I said about X"; or naming nothing at the
  head of a message ("Scratch that.", "Actually, forget it."), which takes back the owner's message just
  before it in the session;
- as a change of state: "we no longer squash merges", "we don't use Jenkins anymore", "the Friday freeze
  is gone / over / lifted", "the VPN rule no longer applies", and "actually, npm is fine again" (which
  takes back only a note forbidding it). A condition ("once the freeze is over, …"), a question or a negated
  verb ("don't forget my rule about pnpm", "please don't ignore it") is no retraction; what happened stays
  what happened, so a change of state never retires an event. Either shape names its subject whole (every
  word of it but a few loose ones, "repo", "run", in the note: "force pushes to main are fine again" and
  "forget what I said about force pushes to main" are not "never force push to develop"), and "we no
  longer use npm" agrees with a note forbidding npm, which stays (`unless_forbidden`). A bare "scratch
  that" / "ignore it" takes back the message before it only when that is one sentence, no question.
Each retraction retires the notes it names — by subject (its stems found in the note's; own stems, no
synonyms: pnpm is not npm) or by the message it points at — whose every source was said before it: the
same session's earlier entries or an earlier time; never a note said after it; only one said in the same
project (the folder of its session, one inside it or above it) or the owner's everywhere (no folder
recorded, or a rule, preference or habit said in two projects or more: what `export.applies` hands every
session). It is logged (`observation_retractions`), so a note kept later from words said before it is
retired as it is kept, and a retired note comes back only when the owner says it again after the
retraction (`keep`). The retraction itself is never kept as a note of what happened (`without_retractions`).
The same table serves the owner's `observations retire ID --reason` (`retire_by_owner`: a note kept later
on the same words is retired too, within the project of the note he retired, or the owner's everywhere)
and the model observer's withdrawals (an erase that withdraws their note turns them into retractions of
each entry it still cites, m027, so the same words read again stay retired), and a note whose every source
lies on a branch the owner rewound away from is retired too (`rewound`): Claude Code's Esc-Esc leaves the
old message on a side branch.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from total_recall.keeping.evicted import MinedEntry
from total_recall.observing.export import LASTING
from total_recall.observing.observation import (
    INJECTED,
    Draft,
    ObserveReport,
    ObservingError,
    iso,
    parse_time,
    utc_now,
    written,
)
from total_recall.observing.phrasing import content_words, stem
from total_recall.record import observations as table
from total_recall.record.branches import active_branch
from total_recall.record.database import Record
from total_recall.record.observations import Observation, Place, Retraction

_OWN_TAGS = frozenset({"instruction", "statement", "question"})
_X_BODY = r"[^.;:!?,()\[\]\"—–]+?"
_X = rf"(?P<x>{_X_BODY})"
_END = r"\s*(?=[.;:!?,()\[\]\"—–]|\s-\s|$)"
_VERB = r"(?:forget|disregard|ignore|scratch|scrap|strike|retract|withdraw|never\s*mind|take\s+back)"
_WHAT = (r"(?:what\s+i\s+(?:said|told\s+you|wrote|asked(?:\s+for)?|mentioned)"
         r"(?:\s+(?:earlier|before|previously|yesterday|last\s+time))?"
         r"|(?:my|the|that|those|these)\s+(?:earlier\s+|previous\s+|old\s+|last\s+|former\s+|original\s+)?"
         r"(?:rules?|instructions?|notes?|requests?|advice|preferences?|comments?|asks?|guidance|point)"
         r"|everything\s+i\s+said|that|this|it)")
_ABOUT = r"(?:about|regarding|re|on|for|of|concerning|around)"
_EXPLICIT = re.compile(
    rf"\b{_VERB}\s+(?:about\s+)?{_WHAT}(?:\s+(?:i\s+(?:gave|made|said|set|had|wrote)(?:\s+you)?"
    rf"|earlier|before|previously))?(?:\s+{_ABOUT}\s+{_X}{_END}|{_END})", re.I)
_NEVER_MIND = re.compile(rf"\bnever\s*mind(?:\s+(?:about|regarding)\s+{_X}{_END}|{_END})", re.I)
_TAKE_BACK = re.compile(rf"\btake\s+(?:that|it|this)\s+back(?:\s+{_ABOUT}\s+{_X}{_END}|{_END})", re.I)
# "Scratch the squash merge rule", "forget my pnpm rule": the subject before the word for a rule. After
# "the"/"that" only "rule" itself: "forget the release notes" or "ignore that advice" take nothing back.
_NAMED_RULE = re.compile(
    rf"\b(?P<verb>{_VERB})\s+(?:(?P<whose>my|our)\s+(?:earlier\s+|previous\s+|old\s+|former\s+)?{_X}"
    rf"\s+(?:rules?|instructions?|notes?|preferences?|advice|guidance|polic(?:y|ies)|conventions?)"
    rf"|(?P<the>the|that)\s+(?:earlier\s+|previous\s+|old\s+|former\s+)?(?P<y>{_X_BODY})\s+rules?){_END}",
    re.I)
_NO_LONGER = re.compile(
    rf"\b(?:we|i|you|they)\s+(?:no\s+longer|(?:do\s+not|don't|dont)\s+(?=.*\b(?:any\s*more|no\s+more)\b))"
    rf"\s*{_X}(?:\s+(?:any\s*more|no\s+more))?{_END}", re.I)
_NOT_APPLY = re.compile(
    rf"^{_X}\s+(?:rule\s+)?(?:no\s+longer|(?:doesn't|does\s+not|don't|do\s+not)\s+)"
    rf"\s*(?:appl(?:y|ies)|stands?|holds?|matters?)(?:\s+any\s*more)?{_END}", re.I)
_IS_NO_LONGER = re.compile(rf"^{_X}\s+(?:is|are)\s+no\s+longer\s+(?P<y>[^.;:!?,()\[\]\"—–]+?){_END}", re.I)
_GONE = re.compile(
    rf"^{_X}\s*(?:\s(?:is|are|has\s+been|have\s+been|was|were)|'s|'re|’s)\s+(?:now\s+|all\s+)?"
    r"(?:gone|over|dead|lifted|cancell?ed|scrapped|retired|dropped|history|no\s+more|"
    rf"a\s+thing\s+of\s+the\s+past|off\s+the\s+table){_END}", re.I)
_AGAIN = re.compile(
    rf"^{_X}\s*(?:\s(?:is|are)|'s|'re|’s)\s+(?:now\s+)?(?:fine|ok|okay|allowed|acceptable|alright|good|back)"
    rf"(?:\s+to\s+use)?\s+again{_END}", re.I)
_CAN_AGAIN = re.compile(rf"\b(?:you|we)\s+(?:can|may)\s+{_X}\s+again{_END}", re.I)
_CONDITION = re.compile(r"\b(?:if|when|whenever|once|until|unless|after|before|while|as\s+soon\s+as|"
                        r"whether)\b", re.I)
_LEAD = re.compile(r"^(?:\s*(?:actually|oh|ok(?:ay)?|wait|sorry|no|please|hmm+|so|and|but|also|now|right|"
                   r"well|update|correction|btw|by\s+the\s+way|one\s+more\s+thing)\b[\s,:!-]*)+", re.I)
_CLAUSE = re.compile(r"\s*(?:[,;—–]|\s-\s|\bbut\b|\band\b)\s*", re.I)
_NEGATION = re.compile(r"\b(?:not|never|no|don't|dont|do\s+not|avoid|instead\s+of|rather\s+than|without|"
                       r"forbidden|banned?|stop)\b", re.I)
# "Don't forget my rule about pnpm", "please don't ignore it": the verb negated (up to three words between,
# no stop between them) asks to keep the rule. "Never mind" is the verb itself, so it is never caught here.
_NEGATED_VERB = re.compile(r"\b(?:don'?t|do\s+not|never|not|won'?t|will\s+not|shouldn'?t|mustn'?t|can'?t|"
                           r"cannot|didn'?t|did\s+not)(?:\s+(?!(?:and|but|so|then)\b)[\w'’]+){0,3}\s*$", re.I)
_BANNED = re.compile(r"\b(?:forbidden|banned?)\b", re.I)
# Words that say what kind of thing was taken back, never which one.
_GENERIC = frozenset({"rule", "thing", "stuff", "said", "earlier", "previou", "point", "whole", "old",
                      "instruction", "note", "policy", "business", "idea", "plan", "part", "bit", "mention",
                      "told", "here", "now", "anymore", "longer", "again", "what", "that", "this"})
# Words a change of state may hold beside its subject without naming another one ("we no longer squash
# merges in this repo"); any other word it holds must be in the note ("force pushes to main are fine again"
# is not "never force push to develop").
_LOOSE_WORDS = ("repo repos repository project projects codebase code team here there today days day time "
                "times run runs running write writes writing written do does doing done get put keep take "
                "make let ask tell try say work works working")


@dataclass(frozen=True, slots=True)
class Said:
    """A retraction found in an owner's message: the sentence, the stems it names (empty: it names the
    owner's message before it, `previous`), whether only notes forbidding it go (`negated`) and whether
    events go too (an explicit retraction: `events`)."""

    entry: MinedEntry
    sentence: str
    stems: frozenset[str]
    negated: bool
    events: bool
    previous: bool
    unless_forbidden: bool = False  # "we no longer use npm": a note forbidding npm agrees and stays


def stems(text: str) -> frozenset[str]:
    """The stems a retraction matches by: a note's own words (no synonyms), an -e or plural aside."""
    out: set[str] = set()
    for w in content_words(text):
        base = stem(w.strip("'’"))
        s = _undoubled(base[:-1] if len(base) > 3 and base.endswith("e") else base)
        if s and base not in _GENERIC and s not in _GENERIC:  # "rule", "note", "here" are generic too
            out.add(s)
    return frozenset(out)


def _undoubled(s: str) -> str:
    """"running" and "run", "committed" and "commit" (never "install", "pass"). Also applied to the stems
    a retraction logged before this rule ("runn"), so its take-back still names the notes kept since."""
    return s[:-1] if len(s) > 3 and s[-1] == s[-2] and s[-1] not in "aeiouylsz" else s


_LOOSE = stems(_LOOSE_WORDS)


def forbidden(text: str) -> frozenset[str]:
    """The stems a note forbids: the words after a negation in its clause ("use pnpm, never npm": npm),
    or before "banned"/"forbidden" ("npm is banned": npm)."""
    out: set[str] = set()
    for sentence in re.split(r"[.;:!?]+", text):
        for clause in _CLAUSE.split(sentence):
            for m in _NEGATION.finditer(clause):
                out |= stems(clause[:m.start()] if _BANNED.fullmatch(m.group(0)) else clause[m.end():])
    return frozenset(out)


def found(entries: Iterable[MinedEntry]) -> list[Said]:
    """The retractions the owner's messages among `entries` hold, in their order."""
    out: list[Said] = []
    for e in entries:
        if e.author != "owner" or e.kind != "message":
            continue
        blocked = ([(m.start(), m.end()) for m in INJECTED.finditer(e.text)]
                   if "[total-recall" in e.text else [])
        spans = ([(s.start, s.end) for s in e.spans if s.tag in _OWN_TAGS] if e.spans
                 else [(0, len(e.text))])
        for n, (start, end) in enumerate(spans):
            if any(s < end and start < t for s, t in blocked):
                continue
            said = _sentence(e, e.text[start:end].strip(), head=n == 0)
            if said is not None:
                out.append(said)
    return out


def _sentence(e: MinedEntry, sentence: str, head: bool) -> Said | None:
    if not sentence or sentence.rstrip("\"')").endswith("?"):
        return None
    for rx in (_EXPLICIT, _NEVER_MIND, _TAKE_BACK, _NAMED_RULE):
        m = rx.search(sentence)
        if m is None or _CONDITION.search(sentence[:m.start()]) or _NEGATED_VERB.search(sentence[:m.start()]):
            continue
        if rx is _NAMED_RULE and m.group("verb").lower() == "ignore" and m.group("the"):
            continue  # "ignore the max-len rule in generated files" is about a linter's rule, not his
        named = stems(m.group("x") or (m.group("y") if rx is _NAMED_RULE else None) or "")
        if named:
            return Said(e, sentence, named, False, True, False)
        # Naming nothing ("scratch that"): only at the head of a message does it point at the one before.
        if head and not _LEAD.sub("", sentence[:m.start()]).strip():
            return Said(e, sentence, frozenset(), False, True, True)
    for clause in _CLAUSE.split(sentence):
        clause = _LEAD.sub("", clause).strip()
        if not clause:
            continue
        for rx, negated in ((_NO_LONGER, False), (_NOT_APPLY, False), (_IS_NO_LONGER, False), (_GONE, False),
                            (_AGAIN, True), (_CAN_AGAIN, True)):
            m = rx.search(clause)
            if m is None or _CONDITION.search(clause[:m.end()]):
                continue
            words = (m.group("x") or "") + " " + (m.groupdict().get("y") or "")
            named = stems(words)
            if named:
                # "We no longer use npm" says what is done now: a note forbidding npm agrees with it.
                return Said(e, sentence, named, negated, False, False, unless_forbidden=rx is _NO_LONGER)
    return None


def without_retractions(drafts: Sequence[Draft], said: Sequence[Said], session: int) -> list[Draft]:
    """`drafts` but the notes that only restate a retraction: what the owner took back is not itself a
    note of what happened, nor the mechanical observer's copy of the sentence that took it back (a
    replacement rule said beside it, or the model's own wording of the new state, stays)."""
    where: dict[str, list[str]] = {}
    for s in said:
        where.setdefault(f"s{session}#{s.entry.seq}", []).append(s.sentence)
    out = []
    for d in drafts:
        restated = d.sources and all(
            any(_overlaps(src.quote or d.text, sentence) for sentence in where.get(src.address, ()))
            for src in d.sources)
        if restated and (d.type in ("event", "context") or d.origin == "mechanical"):
            continue
        out.append(d)
    return out


def _overlaps(quote: str, sentence: str) -> bool:
    q, s = quote.strip().rstrip("…").strip(), sentence.strip()
    return bool(q) and (q in s or s in q)


def apply(record: Record, session: int, said: Sequence[Said], now: datetime, report: ObserveReport) -> None:
    """Log each retraction and retire the notes it names (in the caller's transaction)."""
    if not said:
        return
    facts = table.places(record, [s.entry.id for s in said])
    for s in said:
        place = facts.get(s.entry.id)
        if place is None:
            continue
        target = table.owner_message_before(record, session, place.seq) if s.previous else None
        if s.previous and (target is None or not _one_rule(record, target)):
            continue
        r = table.add_retraction(record, entry=s.entry.id, obs=None, target=target, at=place.ts or iso(now),
                                 stems=sorted(s.stems), negated=s.negated, events=s.events,
                                 unless_forbidden=s.unless_forbidden)
        logged = Retraction(r, s.entry.id, None, target, place.ts or iso(now), tuple(sorted(s.stems)),
                            s.negated, s.events, s.unless_forbidden)
        candidates = table.citing(record, target) if target is not None else None
        for o in _held(record, candidates):
            if _names(record, logged, o, place):
                _retire(record, o, logged, place, now, report)


def _one_rule(record: Record, entry: int) -> bool:
    """Whether the owner's message `entry` is one sentence, no question: what a bare "scratch that" or
    "ignore it" can take back whole ("Never deploy on Fridays. The CI shows a lint warning." is not: the
    "it" of "ignore it, it's harmless" is the warning)."""
    words = table.own_words(record, entry)
    return len(words) == 1 and bool(words[0])


def retire_if_taken_back(record: Record, obs: int, now: datetime) -> bool:
    """Retire a note just kept when a retraction logged before names it and came after all it cites."""
    logged = table.retractions(record)
    if not logged:
        return False
    o = table.read(record, [obs])[0]
    points = table.places(record, [r.entry for r in logged if r.entry is not None])
    for r in logged:
        point = points.get(r.entry) if r.entry is not None else None
        if r.entry is not None and point is None:
            continue
        if _names(record, r, o, point):
            _retire(record, o, r, point, now, None)
            return True
    return False


def later_than_retired(record: Record, o: Observation, entries: Sequence[int]) -> bool:
    """Whether any of `entries` was said after `o` was retired: the owner said it again."""
    point = table.places(record, [o.retired_entry]).get(o.retired_entry) if o.retired_entry else None
    at = o.retired_at or ""
    for p in table.places(record, entries).values():
        if point is not None and p.entry == point.entry:
            continue
        if not _earlier(p, point, at):
            return True
    return False


def retire_by_owner(record: Record, obs: int, reason: str,
                    clock: Callable[[], datetime] = utc_now) -> Observation:
    """The owner retires one observation by its id (`observations retire`); what it says comes back only
    when he says it again after now.

    Raises:
        ObservingError: no such observation, or it is withdrawn or retired already.
    """
    found_ = table.read(record, [obs], withdrawn=True)
    if not found_:
        raise ObservingError(f"no observation {obs} (the `observations` tool with `archived: true` lists "
                             "them with their ids)")
    o = found_[0]
    if o.withdrawn_at is not None:
        raise ObservingError(f"observation {obs} was withdrawn when an entry it cited was erased; "
                             "there is nothing to retire")
    if o.retired:
        raise ObservingError(f"observation {obs} is retired already ({o.retired_reason})")
    now = clock()
    with written(record):
        table.add_retraction(record, entry=None, obs=obs, target=None, at=iso(now),
                             stems=sorted(stems(o.text)), negated=False, events=True)
        table.retire(record, obs, iso(now), f"retired by the owner: {reason.strip()}", None, iso(now))
    return table.read(record, [obs])[0]


def withdraw_check(record: Record, o: Observation, entry: MinedEntry) -> str | None:
    """Why `entry` cannot take note `o` back (it cites words said at or after it), or None."""
    point = table.places(record, [entry.id]).get(entry.id)
    if point is None:
        return f"s?#{entry.seq} is not in the record"
    if not _all_before(record, o, point, point.ts or ""):
        return f"#{o.id} cites words said at or after s{point.session}#{point.seq}"
    return None


def withdraw_for_model(record: Record, o: Observation, entry: MinedEntry, address: str, now: datetime,
                       report: ObserveReport) -> str | None:
    """Retire a held note the model observer says the owner took back at `entry`; why not, or None."""
    if (why := withdraw_check(record, o, entry)) is not None:
        return why
    point = table.places(record, [entry.id])[entry.id]
    r = table.add_retraction(record, entry=entry.id, obs=o.id, target=None, at=point.ts or iso(now),
                             stems=sorted(stems(o.text)), negated=False, events=True)
    logged = Retraction(r, entry.id, o.id, None, point.ts or iso(now), tuple(sorted(stems(o.text))), False,
                        True)
    _retire(record, o, logged, point, now, report)
    return None


def rewound(record: Record, session: int, now: datetime, report: ObserveReport) -> None:
    """Retire the notes whose every source lies on a side branch of `session` (the owner rewound past
    those words and said something else): they stand again when said again later."""
    notes = table.citing_session(record, session)
    if not notes:
        return
    links = list(record.tree_links(session))
    # Only a tree with a fork (a node with two children, or two roots) has a side branch; a session whose
    # harness writes no tree (no parents) has none.
    nodes = {(link.native_id, link.parent) for link in links if link.native_id is not None}
    parents = [parent for _, parent in nodes]
    if not any(p is not None for p in parents) or len(parents) == len(set(parents)):
        return
    active = active_branch(links)
    if not active:
        return
    for o in table.read(record, notes):
        if o.retired or o.superseded_by is not None:
            continue
        where = table.places(record, [c.entry for c in o.sources])
        side = [p for p in where.values() if p.session == session and p.native_id is not None
                and p.native_id not in active]
        if side and len(side) == len(where):
            at = max((p.ts for p in side if p.ts), default=iso(now))
            addresses = ", ".join(f"s{p.session}#{p.seq}" for p in side[:4])
            table.retire(record, o.id, at, f"rewound: {addresses} left on a side branch", None, iso(now))
            report.retired += 1


def _held(record: Record, ids: Sequence[int] | None) -> list[Observation]:
    if ids is not None and not ids:
        return []
    return [o for o in table.read(record, ids) if not o.retired and o.superseded_by is None]


def _names(record: Record, r: Retraction, o: Observation, point: Place | None) -> bool:
    """Whether retraction `r` (said at `point`) names note `o` and came after every word `o` rests on."""
    if o.retired or (not r.events and o.type == "event"):
        return False
    if r.target is not None:
        if r.target not in {c.entry for c in o.sources}:
            return False
    else:
        have = stems(o.text)
        want = {_undoubled(w) for w in r.stems}
        if not want or not have:
            return False
        if r.obs is not None:
            # The stems of a retired note: the same words, read again or put another way.
            common = len(want & have)
            if r.obs == o.id or common < min(2, len(have)) or common < 0.6 * len(have):
                return False
        elif not _whole(want, have):
            return False
        if r.negated and not _NEGATION.search(o.text):
            return False
        if r.unless_forbidden and want & forbidden(o.text):
            return False  # "we don't use npm anymore" agrees with "never npm"
        if not _same_project(record, o, _here(record, r, point)):
            return False
    return _all_before(record, o, point, r.at)


def _whole(named: set[str], note: frozenset[str]) -> bool:
    """Whether a retraction in words, naming stems `named`, names the subject of a note of stems `note`:
    every stem it names is in the note (a loose word, "repo", "run", may be missing beside others). So
    "forget what I said about force pushes to main" is not about "Never force push to develop", though two
    of its three words are there, and "forget my rule about squash merges in this repo" is about "We always
    squash merges into main". The same for every shape, explicit or a change of state: a retraction naming
    more than the note says is about another thing."""
    core = set(named) - _LOOSE or set(named)
    return core <= note


def _here(record: Record, r: Retraction, point: Place | None) -> list[str | None]:
    """The folders a retraction by stems was said in: its session's (at `point`), or for `observations
    retire` (no entry: the CLI has no project) those of the note the owner retired. None found: it reaches
    only the owner's notes everywhere."""
    if r.entry is not None and point is not None:
        return [table.folders(record, [point.entry]).get(point.entry)]
    retired = table.read(record, [r.obs], withdrawn=True) if r.entry is None and r.obs is not None else []
    return list(table.folders(record, [c.entry for c in retired[0].sources]).values()) if retired else []


def _same_project(record: Record, o: Observation, here: Sequence[str | None]) -> bool:
    """Whether note `o` is within reach of a retraction said in folders `here`: said in the same project
    (a folder of `here`, one inside it or above it, as export's `applies` reads a project), or the owner's
    everywhere (`_everywhere`). A retraction said with no folder takes back only the latter."""
    theirs = [_folder(f) for f in table.folders(record, [c.entry for c in o.sources]).values()]
    if _everywhere(o, theirs):
        return True
    mine = [h for h in map(_folder, here) if h is not None]
    return any(f is not None and (_inside(f, h) or _inside(h, f)) for f in theirs for h in mine)


def _everywhere(o: Observation, folders: Sequence[str | None]) -> bool:
    """Whether `o` is the owner's in every project, as `export.applies` hands it to any session: said where
    no folder was recorded, or — a rule, preference or habit — in two projects or more (neither inside the
    other). Taken back from any project; a note said only in one other project never is."""
    if any(f is None for f in folders):
        return True
    if o.type not in LASTING:
        return False
    roots = {f for f in folders if f is not None}
    return len({f for f in roots if not any(g != f and _inside(f, g) for g in roots)}) >= 2


def _folder(cwd: str | None) -> str | None:
    folder = (cwd or "").strip().rstrip("/")
    return folder or None


def _inside(folder: str, project: str) -> bool:
    return folder == project or folder.startswith(project + "/")


def _all_before(record: Record, o: Observation, point: Place | None, at: str) -> bool:
    where = table.places(record, [c.entry for c in o.sources])
    return bool(where) and all(_earlier(p, point, at) for p in where.values())


def _earlier(p: Place, point: Place | None, at: str) -> bool:
    """Whether entry `p` was said before `point` (an entry; None: the time `at`)."""
    if point is not None:
        if p.session == point.session:
            return p.seq < point.seq
        mine, theirs = parse_time(p.ts), parse_time(point.ts)
        if mine is not None and theirs is not None:
            return mine < theirs
        return p.entry < point.entry
    mine, theirs = parse_time(p.ts), parse_time(at)
    return mine is None or theirs is None or mine < theirs


def _retire(record: Record, o: Observation, r: Retraction, point: Place | None, now: datetime,
            report: ObserveReport | None) -> None:
    if point is not None:
        how = " (the model observer read it so)" if r.obs is not None else ""
        reason = f"taken back by the owner at s{point.session}#{point.seq}{how}"
    else:
        reason = (f"the owner retired #{r.obs} on the same words" if r.obs is not None
                  else "taken back by the owner")
    table.retire(record, o.id, r.at, reason, r.entry, iso(now))
    if report is not None:
        report.retired += 1
