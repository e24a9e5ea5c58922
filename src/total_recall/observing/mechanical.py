"""The mechanical observer: observations found without a model, so a fresh machine gets value.

It reads what the marker builder reads (`keeping/evicted.read_range`: erased, quarantined and side-branch
entries left out, injected markers masked) and turns into drafts:
- the owner's own sentences that state something lasting — a rule ("never …", "always …", but also how
  owners write them: "Deploys wait for the Friday freeze", "Staging first, then prod", "No deploys on
  Fridays", "Use pnpm, not npm"), a preference, a habit, a goal, a fact, an event — each quoted whole from
  his own prose spans, so a pasted email's "ignore the previous rule" is never his;
- the decisions, failures and open items `keeping/items.find_items` finds;
- the first instruction of a session read from its start, as its context (the task).
A one-off instruction ("fix the login test") is not a lasting note and is left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from total_recall.keeping.evicted import MinedEntry
from total_recall.keeping.items import find_items
from total_recall.observing.observation import INJECTED, MAX_TEXT, Draft, Source

# (type, priority, confidence, importance) for each kind of owner sentence.
_RULE = ("rule", "high", 0.9, 9.0)
_NORM = ("rule", "high", 0.8, 8.5)
_SOFT = ("rule", "high", 0.7, 8.0)
_PREFERENCE = ("preference", "medium", 0.85, 6.0)
_HABIT = ("habit", "medium", 0.8, 5.0)
_GOAL = ("goal", "medium", 0.8, 6.0)
_EVENT = ("event", "low", 0.8, 4.0)
_INCIDENT = ("event", "medium", 0.8, 5.0)
_FACT = ("fact", "medium", 0.75, 5.0)

_HABIT_RX = re.compile(
    r"\bi (?:usually|normally|typically|tend to|generally|often|always|mostly)\b|\bmy (?:routine|habit)\b")
_PREFERENCE_RX = re.compile(
    r"\bi (?:really )?(?:prefer|like|love|hate|dislike|enjoy|can't stand)\b|\bi'd (?:rather|prefer|like)\b|"
    r"\bi would (?:rather|prefer)\b|\bi don't (?:like|want|care for)\b|\bmy preference\b|"
    r"\bprefer(?:s|red)?\b|\brather than\b|"
    r"\bkeep (?:it|them|answers|replies|responses|messages|explanations|summaries) "
    r"(?:short|brief|concise|terse|simple)\b|\bno emojis?\b|\bbe (?:brief|concise|terse)\b")
_RULE_RX = re.compile(
    r"\b(?:always|never|from now on|going forward|from here on|every time|each time|whenever|"
    r"under no circumstances|at all times|no exceptions?|by default|as a rule|the rule is|"
    r"our (?:convention|policy|rule|standard) is|(?:is|are) (?:not allowed|forbidden|mandatory|required)|"
    r"must(?:n't| not)?|shall not|do not ever|don't ever|not ever)\b")
# How owners write a convention without "always"/"never": a subject of any length (not a pronoun or an
# article-led one-off) that waits, goes, belongs … somewhere; "X first, then Y"; "No X before Y"; "Only X
# merges"; "Every X change needs …"; "X is off limits"; "one X per Y"; "X before Y" with no verb at all.
_NOT_SUBJECT = r"(?!(?:the|a|an|this|that|it|i|we|you|he|she|they|my|our|your|there|here|if|when|so)\b)"
_NORM_RX = re.compile(
    r"\b[\w/.-]+,? first,? then\b|"
    r"^" + _NOT_SUBJECT + r"[a-z][\w/.-]*(?: [a-z0-9][\w/.:-]*){0,5}? (?:wait|waits|go|goes|need|needs|"
    r"require|requires|belong|belongs|stay|stays|happen|happens|ship|ships|merge|merges|get|gets|"
    r"land|lands|come|comes) (?:for|through|in|into|after|before|via|behind|only|to|under|out of|"
    r"away from|outside)\b|"
    r"^" + _NOT_SUBJECT + r"[a-z][\w/.-]*(?: [a-z0-9][\w/.:-]*){0,5}? (?:start|starts|end|ends) with\b|"
    r"\bonly (?:after|when|once|via|through|with|from)\b|"
    r"^(?:no|nothing) [\w/.-]+(?: [\w/.-]+){0,3} (?:without|before|until|on|in|into|to|during|after|"
    r"outside|past)\b|"
    r"^no (?:more )?[\w/.-]+(?: [\w/.-]+)?$|"
    r"\b[\w/.-]+, not [\w/.-]+|"
    r"\b(?:before|after) (?:every|each|any) \w+|"
    r"\bwe (?:use|don't use|do not use|avoid|never|always|only)\b|"
    # a deontic predicate, whatever the subject
    r"\b(?:off[ -]limits|hands off|out of bounds|nowhere (?:near|else|outside)|needs? my (?:ok|okay|"
    r"approval|sign-?off|go-ahead)|(?:is|are) (?:not )?(?:allowed|permitted) (?:to|on|in|during|before|"
    r"without))\b|"
    # a quantified subject and its verb: "Every schema change gets …", "Any new dependency needs …"
    r"^(?:every|each|any) (?!(?:day|night|week|month|year|morning|afternoon|evening|time|other|monday|"
    r"tuesday|wednesday|thursday|friday|saturday|sunday)\b)(?:[\w/.:-]+ ){1,5}?(?:must|should|may|"
    r"has to|needs|requires|gets|goes|stays|waits|ships|belongs|carries|lands)\b|"
    r"^only (?:the |my |our )?(?:[\w/.:-]+ ){0,4}?(?:may|can|must|should|gets? to|"
    r"(?!is\b|was\b|has\b|this\b|its\b|does\b)[a-z]+[^s\W]s)\b|"
    r"(?:^|, )(?:nobody|no one) (?!knows|seems|cares|says|thinks)[a-z]+s\b|"
    r"^(?:one|a single|at most \w+|no more than \w+) [\w/.:-]+(?: [\w/.:-]+){0,3} per \w|"
    r"^[a-z][\w-]*(?: [a-z][\w-]*)? before [a-z][\w-]*(?: [a-z][\w-]*)?\W*$")
# A generic plural subject and a present verb, with a condition, a manner or a frequency adverb: "Schema
# changes ship behind a flag", "Branch names start with the ticket", "Dumps are encrypted before they
# leave". Checked after events, since "Tests fail after the upgrade" reports rather than rules.
_GENERIC_RX = re.compile(
    r"^" + _NOT_SUBJECT + r"(?!(?:is|was|has|does|its|yes|thanks|always|sometimes|perhaps|as|us|plus|"
    r"less|unless|please|also|just|this|thus)\b)(?:[a-z][\w-]* )?[a-z][\w-]*[^s\W']s"
    r"(?: (?:of|for|on|in|to|from|under|against|into|with|at|by) [\w/.:-]+(?: [\w/.:-]+)?)? "
    r"(?:(?:still|always|only|usually|normally) [a-z]+\b|"
    r"(?:are|get) (?:\w+ed|\w+en) (?:before|after|until|through|via|behind|only|first)\b|"
    r"(?!(?:are|were|was|is|have|had|do|did|fail|break|crash|hang|work|pass|look|seem|keep|time|show|"
    r"before|after|in|on|at|for|and|or|but|with|from|to|of|that|which|who|when|if|as|than|out|up|off|down|"
    r"over)\b)[a-z]+(?<!ed)"
    r"\b(?=.*\b(?:before|until|unless|only|through|via|behind|out of|away from|first|by hand|under)\b))")
# "We squash commits on develop": the team's present-tense habit, as a convention.
_WE_DO_RX = re.compile(
    r"^we (?!(?:are|were|have|had|will|would|can|could|should|might|may|did|do|don't|need|want|plan|hope|"
    r"think|know|got|went|saw|see|met|lost|made|took|found|ran|built|sent|left|broke|came|tried|just|also|"
    r"still|get|hit|lose|love|like|hate|all|both)\b)[a-z]+(?<!ed) [a-z]")
_SOFT_RX = re.compile(r"\b(?:don't|do not|dont|should(?:n't| not)?|avoid|instead of)\b")
# The shapes anchored at a sentence's start read past a short lead-in ending in a colon ("Before you start:
# No force pushes to develop."), but not past an error's name ("Error: no tests in src/").
_LEAD_IN = re.compile(r"^(?:[a-z][\w']*,? ){0,3}[a-z][\w']*:\s+")
_NOT_LEAD_IN = re.compile(r"error|warning|exception|fatal|failed|failure|traceback")
# A sentence about the present moment reports; it does not lay down a rule ("Only two tests fail now").
_NOW = re.compile(r"\b(?:now|today|tonight|this (?:time|week|morning)|yet|currently|at the moment|for now)\b")
_DEICTIC = re.compile(r"\b(?:this|that|it|these|those|yet|now|today|here|there|again|anymore|for now)\b")
_GOAL_RX = re.compile(
    r"\b(?:my|our|the) (?:goal|aim|objective|target) (?:is|for)\b|\b(?:i|we) (?:want|plan|intend|hope|aim) "
    r"to\b|\bby (?:the )?end of (?:the )?(?:week|month|quarter|year|sprint)\b|\bdeadline\b|"
    r"\bwe need to (?:ship|launch|finish|release|get)\b")
_INCIDENT_RX = re.compile(r"\b(?:went down|was down|were down|outage|incident|data loss|rolled back)\b")
_EVENT_RX = re.compile(
    r"\b(?:yesterday|this morning|this afternoon|tonight|last night|last week|earlier today|just now|"
    r"on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b|"
    r"\b(?:i|we|they|someone) (?:just )?(?:deployed|shipped|released|launched|merged|migrated|upgraded|"
    r"rotated|deleted|moved|renamed|installed|hired|broke|fixed|met|signed|switched|bought|renewed)\b")
_FACT_RX = re.compile(
    r"\b(?:is|are|lives|live|runs|run|sits|uses|listens|points|hosted|stored|located|called|named|"
    r"belongs)\b")
_CONCRETE = re.compile(r"[/:]\w|\w\.\w|\d|`|\b[A-Z][a-z]+[A-Z]\w*|\b[A-Z]{2,}\b")
_ABOUT_OWNER = re.compile(r"\bmy name is\b|\bcall me\b|\bi(?: am|'m) (?:a|an|the)\b|\bi work (?:at|on|for)\b|"
                          r"\bmy (?:team|company|role|timezone|time zone)\b")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_APPROVAL = re.compile(r"^\W*(?:yes|yep|yeah|ok|okay|sure|go ahead|go for it|approved?|lgtm|sounds good|"
                       r"do it|ship it|agreed|perfect)\b")
_OWN = frozenset({"instruction", "statement"})


def drafts(session: int, entries: Sequence[MinedEntry], from_start: bool) -> list[Draft]:
    """Every observation the mechanical observer finds in `entries` (of session `session`, in order);
    `from_start`: the entries open the session, so its first instruction is its context."""
    out = list(_owner_drafts(session, entries, from_start))
    out.extend(_item_drafts(session, entries))
    return out


def classify(sentence: str, tag: str) -> tuple[str, str, float, float] | None:
    """(type, priority, confidence, importance) of one sentence of the owner's prose, or None when it is
    not a lasting note (a question, a one-off instruction, chatter)."""
    if tag not in _OWN:
        return None
    s = _BULLET.sub("", sentence).strip()
    low = s.lower()
    if len(low.split()) < 3 or low.rstrip("\"')").endswith("?"):
        return None
    if _HABIT_RX.search(low):
        return _HABIT
    if _PREFERENCE_RX.search(low):
        return _PREFERENCE
    if _RULE_RX.search(low):
        return _RULE
    lead = _LEAD_IN.match(low)
    body = low[lead.end():] if lead and not _NOT_LEAD_IN.search(lead.group()) else low
    if (_NORM_RX.search(low) or _NORM_RX.search(body)) and not _NOW.search(low):
        return _NORM
    if tag == "instruction" and _SOFT_RX.search(low) and not _DEICTIC.search(low):
        return _SOFT
    if _GOAL_RX.search(low):
        return _GOAL
    if _INCIDENT_RX.search(low):
        return _INCIDENT
    if _EVENT_RX.search(low):
        return _EVENT
    if (_GENERIC_RX.search(body) or _WE_DO_RX.search(body)) and not _DEICTIC.search(body):
        return _NORM
    if tag == "statement" and (_ABOUT_OWNER.search(low) or (_FACT_RX.search(low) and _CONCRETE.search(s))):
        return _FACT
    return None


def _owner_drafts(session: int, entries: Sequence[MinedEntry], from_start: bool) -> Iterator[Draft]:
    task_left = from_start
    for e in entries:
        if e.author != "owner" or e.kind != "message":
            continue
        blocked = ([(m.start(), m.end()) for m in INJECTED.finditer(e.text)]
                   if "[total-recall" in e.text else [])
        for span in e.spans:
            if blocked and any(s < span.end and span.start < t for s, t in blocked):
                continue
            sentence = e.text[span.start:span.end].strip()
            found = classify(sentence, span.tag)
            if found is None:
                if task_left and span.tag == "instruction" and len(sentence.split()) >= 3:
                    task_left = False
                    yield _draft(session, sentence, ("context", "low", 0.7, 3.0), e, "explicit")
                continue
            task_left = task_left and span.tag != "instruction"
            yield _draft(session, sentence, found, e, "explicit")


def _item_drafts(session: int, entries: Sequence[MinedEntry]) -> Iterator[Draft]:
    by_seq = {e.seq: e for e in entries}
    for item in find_items(entries).found:
        e = by_seq[item.seq]
        line = item.line.removesuffix("…").strip()
        if not line or (INJECTED.search(e.text) and any(
                m.start() <= e.text.find(line) < m.end() for m in INJECTED.finditer(e.text))):
            continue
        owner = e.author == "owner"
        if item.kind == "decision":
            if owner and (_APPROVAL.match(line.lower()) or len(line.split()) < 5):
                continue  # "yes, go ahead": an approval of something the note cannot show
            found = ("fact", "medium", 0.75, 5.0) if owner else ("fact", "low", 0.6, 4.0)
        elif item.kind == "failure":
            if owner:
                found = ("event", "medium", 0.8, 5.0)
            elif e.kind == "tool_result":
                found = ("event", "low", 0.5, 3.0)
            else:
                found = ("event", "low", 0.6, 3.0)
        else:
            found = ("goal", "medium", 0.75, 5.0) if owner else ("context", "low", 0.6, 3.0)
        source_type = "explicit" if owner else "implicit" if e.kind != "tool_result" else "weak"
        yield _draft(session, line, found, e, source_type)


def _draft(session: int, sentence: str, found: tuple[str, str, float, float], e: MinedEntry,
           source_type: str) -> Draft:
    kind, priority, confidence, importance = found
    quote = _cut(sentence)
    text = quote if quote == sentence else quote + "…"
    return Draft(text=text, priority=priority, type=kind, confidence=confidence, source_type=source_type,
                 sources=(Source(f"s{session}#{e.seq}", quote),), importance=importance)


def _cut(sentence: str) -> str:
    """At most MAX_TEXT − 1 characters, cut at a word (the part kept verbatim)."""
    sentence = sentence.strip()
    if len(sentence) < MAX_TEXT:
        return sentence
    cut = sentence.rfind(" ", 0, MAX_TEXT - 1)
    return sentence[: cut if cut > MAX_TEXT // 2 else MAX_TEXT - 1].rstrip()
