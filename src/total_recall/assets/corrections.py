"""What the owner's words say about assets: a correction ("you have the X for that", "use the Y skill",
"we did this with Z last time", "there's a script for that"), a mute ("please don't mention X", "stop
suggesting X") and its lifting ("you can mention X again"), and a reference back to a past run ("the setup
we used", "like last time").

Read from the owner's own words only (record/spans: instructions, questions, statements and commands —
never a paste), by the rebuild and by the overlay alike, so a correction means the same on both paths.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from total_recall.assets.words import KIND_WORDS, STOP, grams, normal_name, plain_word, tokens
from total_recall.model import Span

_KIND = r"(?:skill|command|script|tool|agent|mcp server|server|helper|machine|box|prompt)"
_NAME = r"(?:the |a |an |your |our |my |that )?(?P<name>[^.,;:!?\n\"“”]{2,60}?)"
_NAMED = (
    re.compile(rf"\byou(?: already)? (?:have|'ve got|got|own) {_NAME}(?: {_KIND})? "
               rf"for (?:that|this|it|these)\b"),
    re.compile(rf"\b(?:just |why not |try |please )?use {_NAME} {_KIND}\b"),
    re.compile(rf"\bwe (?:did|do|solved|handled|fixed) (?:this|that|it) (?:with|using|via) {_NAME}"
               rf"(?: {_KIND})?(?= last time| before| the last time|[.,;!?]|$)"),
    re.compile(rf"\b(?:remember|don't forget|you forgot) {_NAME} {_KIND}\b"),
)
_UNNAMED = re.compile(rf"\b(?:you (?:already )?have|there'?s|there is|we have|we've got) (?:a|an|the) {_KIND}"
                      rf"s? for (?:that|this|it)\b")
_MUTE = re.compile(r"\b(?:please )?(?:don'?t|do not|stop|quit|never) (?:mention(?:ing)?|suggest(?:ing)?|"
                   r"bring(?:ing)? up|recommend(?:ing)?|push(?:ing)?|offer(?:ing)?) " + _NAME
                   + r"(?=$|[.,;!?\n])")
_UNMUTE = re.compile(r"\b(?:you can|feel free to|it's ok to|ok to|you may) "
                     r"(?:mention|suggest|bring up|recommend|push|offer) " + _NAME + r" again\b")
_REFER_BACK = re.compile(
    r"\b(?:the (?:same )?(?:setup|settings|config|configuration|command|flags|parameters|params|recipe|way) "
    r"(?:we|you|i) (?:used|had|ran|did)|like (?:we did )?last time|same as (?:last time|before)|"
    r"as (?:we did )?last time|the way we did it (?:last time|before)|(?:same|usual) (?:setup|settings))\b")
# A sentence that asks for something to stop being offered names it beside either a stop word and a verb of
# offering ("quit pointing me at X", "never bring X up"), or a word that retires it ("I'm done with X",
# "X is retired", "leave X out", "forget X"): the cue and the name are read apart, so any order of the two
# and any asset's name count, whatever the wording between them.
_STOP_CUE = re.compile(r"\b(?:don'?t|do not|stop|quit|never|no longer)\b")
_PRONOUNS = frozenset("it that this them those these one".split())
_OFFER = re.compile(r"\b(?:mention|suggest|bring|recommend|push|offer|point|propos|remind|rais|show|pitch|"
                    r"nudg|steer)\w*|\b(?:anymore|any more|from now on)\b")
_RETIRE = re.compile(r"\b(?:retired?|deprecated|obsolete|done with|moved on|enough (?:about|of|with)|"
                     r"no more|leave \S+(?: \S+){0,4} out|"
                     r"(?<!don't )(?<!do not )(?<!never )forget(?: about)?)\b")
_PERMIT = re.compile(r"\b(?:you can|you may|feel free|it's (?:ok|fine)|ok to|go ahead)\b")
_SENTENCE = re.compile(r"(?:[^.;!?\n]|\.(?=\w))+")  # a dot inside a word (rotate_logs.sh) ends none
# Words that end a name the owner said but are not part of it.
_TRAILING = frozenset("anymore again please ever now for me to at all any more thing one".split())
_TRAILING |= KIND_WORDS


@dataclass(frozen=True, slots=True)
class Correction:
    """A correction naming an asset by one of `names` (normal names, longest first), or none (`unnamed`:
    "there's a script for that" — the asset the agent uses next)."""

    names: tuple[str, ...]
    said: str = ""  # the words the owner used for it, as a normal name

    @property
    def unnamed(self) -> bool:
        return not self.names


@dataclass(frozen=True, slots=True)
class Mute:
    name: str
    action: Literal["mute", "unmute"]


def owner_words(text: str, spans: Sequence[Span]) -> str:
    """The owner's own words of a message: its spans but the pastes, one per line."""
    return "\n".join(text[s.start:s.end] for s in spans if s.tag != "paste").strip()


def _lower(words: str) -> str:
    return words.lower().replace("’", "'")


def said_name(raw: str) -> str:
    """The name the owner said, without an article before it or a kind word after it."""
    words = tokens(raw)
    while words and words[0] in ("the", "a", "an", "your", "our", "my", "that", "this"):
        words = words[1:]
    while words and words[-1] in _TRAILING:
        words = words[:-1]
    return " ".join(words)


def corrections(words: str) -> list[Correction]:
    """The corrections in the owner's words."""
    low = _lower(words)
    out: list[Correction] = []
    for pattern in _NAMED:
        for m in pattern.finditer(low):
            said = said_name(m.group("name"))
            if said:
                names = sorted(set(grams(said.split(), 5)), key=lambda g: (-len(g.split()), g))
                out.append(Correction(tuple(names), said))
    if not out and _UNNAMED.search(low):
        out.append(Correction(()))
    return out


Known = Callable[[Iterable[str]], set[str]]  # which of these normal names name an asset


def mutes(words: str, known: Known | None = None) -> list[Mute]:
    """The mutes and their liftings in the owner's words, in the order said: the phrasings above, and,
    with `known`, any sentence naming a known asset beside a stop cue and a verb of offering, or a word
    retiring it."""
    low = _lower(words)
    found: list[tuple[int, Mute]] = []
    for m in _UNMUTE.finditer(low):
        if name := said_name(m.group("name")):
            found.append((m.start(), Mute(name, "unmute")))
    for m in _MUTE.finditer(low):
        if (name := said_name(m.group("name"))) and name not in _PRONOUNS \
                and not any(m.start() == at for at, _ in found):
            found.append((m.start(), Mute(name, "mute")))
    if known is not None:
        for sentence in _SENTENCE.finditer(low):
            text = sentence.group()
            if _PERMIT.search(text) or not (
                    (_STOP_CUE.search(text) and _OFFER.search(text)) or _RETIRE.search(text)):
                continue
            said = {m.name for _, m in found}
            for name in sorted(known(grams(tokens(text), 5)), key=lambda n: (-len(n), n)):
                if not any(name in s for s in said):
                    found.append((sentence.start(), Mute(name, "mute")))
                    said.add(name)
    return [mute for _, mute in sorted(found, key=lambda f: f[0])]


_CALLED = re.compile(r"\b(?:the|your|our|my)\s+([a-z0-9][\w-]*(?:[ \t]+[a-z0-9][\w-]*){0,2})")


def called_names(words: str) -> list[str]:
    """What the owner may have called a thing he pointed at without its name ("didn't we do this with the
    editor already?"): each "the …" run of up to three words, cut before a stop word. A kind word ends
    the name ("the notion skill covers this": "notion skill", and "notion" without it); without one nothing
    tells a name's last word from a verb after it ("the editor exists"), so each leading run is a name. A
    single everyday word keeps its article: only "the editor" names it again, never "editor" in passing."""
    out: list[str] = []
    for m in _CALLED.finditer(_lower(words)):
        run = tokens(m.group(1))
        run = run[:next((i for i, w in enumerate(run) if w in STOP), len(run))]
        kind = next((i for i, w in enumerate(run) if w in KIND_WORDS and i), None)
        cuts = [run[:kind + 1], run[:kind]] if kind is not None else [run[:n] for n in range(len(run), 0, -1)]
        for cut in cuts:
            if (name := normal_name(" ".join(cut))) and name not in KIND_WORDS:
                out.append(f"the {name}" if plain_word(name) else name)
    return list(dict.fromkeys(out))


def refers_back(words: str) -> bool:
    """Whether the owner points back at a past run ("the setup we used", "like last time")."""
    return _REFER_BACK.search(_lower(words)) is not None

