"""The mechanical observer: observations found without a model, so a fresh machine gets value.

It reads what the marker builder reads (`keeping/evicted.read_range`: erased, quarantined and side-branch
entries left out, injected markers masked) and turns into drafts:
- the owner's own sentences that state something lasting — a rule ("never …", "always …", but also how
  owners write them: "Deploys wait for the Friday freeze", "Staging first, then prod", "No deploys on
  Fridays", "Use pnpm, not npm"), a preference, a habit, a goal, a fact, an event — each quoted whole from
  his own prose spans, so a pasted email's "ignore the previous rule" is never his;
- the decisions, failures and open items `keeping/items.find_items` finds;
- the first instruction of a session read from its start, as its context (the task).
A one-off instruction ("fix the login test", "fix the lint errors in this repo", "restart nginx first, then
check the logs") is not a lasting note and is left out, nor is a tool's message he quotes inline ("npm ERR!
…", "eslint says: …"), nor a sentence that only points at a rule he said before ("don't forget my rule
about pnpm", `refers_only`). A secret in a sentence is redacted (`llm.redaction`) before any note keeps it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from total_recall.keeping.evicted import MinedEntry
from total_recall.keeping.items import find_items
from total_recall.llm.redaction import redact
from total_recall.observing import rule_words
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
_WORDED = ("rule", "high", 0.65, 7.5)  # read by its words (`rule_words`), no shape
# The head of a sentence its shapes and words read: a rule is said in far less, and the shapes' cost grows
# with the length (a 100,000-character run-on paragraph took 0.3 s).
LONGEST = 2_000

_HABIT_RX = re.compile(
    r"\bi (?:usually|normally|typically|tend to|generally|often|always|mostly)\b|\bmy (?:routine|habit)\b")
_PREFERENCE_RX = re.compile(
    r"\bi (?:really )?(?:prefer|like|love|hate|dislike|enjoy|can't stand)\b|\bi'd (?:rather|prefer|like)\b|"
    r"\bi would (?:rather|prefer)\b|\bi don't (?:like|want|care for)\b|\bmy preference\b|"
    r"\bprefer(?:s|red)?\b|\b(?:i|me|my)\b.*\brather than\b|\brather than\b.*\b(?:i|me|my)\b|"
    r"\bkeep (?:it|them|(?:the |your |my |our |all )?(?:[\w-]+ ){0,2}(?:answers|replies|responses|messages|"
    r"explanations|summaries|descriptions|comments|docstrings|commit messages|titles|updates|notes)) "
    r"(?:short|brief|concise|terse|simple|tight|to the point)\b|\b(?:no|fewer|less) emojis?\b|"
    r"\bbe (?:brief|concise|terse)\b|"
    # how owners say what suits them without "prefer": "I find X easier to read", "X reads nicer to me",
    # "big fan of early returns", "I'm more comfortable with polars", "that's how I read best"
    r"\bi find\b|\b(?:easier|harder|nicer|cleaner|clearer|simpler|better|worse|wrong|distracting|happier)"
    r"(?: \w+)? (?:for|to) me\b|\b(?:works?|suits?) (?:better )?for me\b|\bsuits me\b|"
    r"\bi'm (?:more |much |a lot )?(?:comfortable|happier|happy) with\b|\b(?:a |big |huge )?fan of\b|"
    r"\bi'm partial to\b|\bi(?:'d| would) lean\b|\bpersonally\b|\bwhat i'm used to\b|"
    r"\bhow i (?:read|work|think|learn) best\b|\bwhen it's up to you\b|\btalk to me like\b|"
    r"\b(?:casual|informal) is fine\b")
_RULE_RX = re.compile(
    r"\b(?:always|never|from now on|going forward|from here on|for the future|in future|every time|each time|"
    r"whenever|"
    r"under no circumstances|at all times|no exceptions?|by default|as a rule|the rule is|"
    r"our (?:convention|policy|rule|standard) is|(?:is|are) (?:not allowed|forbidden|mandatory|required)|"
    r"must(?:n't| not)?|shall not|do not ever|don't ever|not ever)\b")
# How owners write a convention without "always"/"never": a subject of any length (not a pronoun or an
# article-led one-off) that waits, goes, belongs … somewhere; "X first, then Y"; "No X before Y"; "Only X
# merges"; "Every X change needs …"; "X is off limits"; "one X per Y"; "X before Y" with no verb at all.
_NOT_SUBJECT = r"(?!(?:the|a|an|this|that|it|i|we|you|he|she|they|my|our|your|there|here|if|when|so)\b)"
_DESCRIBED = (r"(?:[a-z]+ed|safe|unsafe|good|bad|valid|invalid|empty|blank|long|short|old|big|small|"
              r"extra|broken|random|other|next|last|previous)\b ")
_NORM_RX = re.compile(
    r"^" + _NOT_SUBJECT + r"[a-z][\w/.-]*(?: [a-z0-9][\w/.:-]*){0,5}? (?:wait|waits|go|goes|need|needs|"
    r"require|requires|belong|belongs|stay|stays|happen|happens|ship|ships|merge|merges|get|gets|"
    r"land|lands|come|comes) (?:for|through|in|into|after|before|via|behind|only|to|under|out of|"
    r"away from|outside)\b|"
    r"^" + _NOT_SUBJECT + r"[a-z][\w/.-]*(?: [a-z0-9][\w/.:-]*){0,5}? (?:start|starts|end|ends) with\b|"
    r"\bonly (?:after|when|once|via|through|with|from)\b|"
    r"^(?:no|nothing) [\w/.-]+(?: [\w/.-]+){0,3} (?:without|before|until|on|in|into|to|during|after|"
    r"outside|past)\b|"
    r"^no (?:more )?[\w/.-]+(?: [\w/.-]+)?$|"
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
    r"^(?!" + _DESCRIBED + r")[a-z][\w-]*(?: [a-z][\w-]*)? before (?!" + _DESCRIBED + r")[a-z][\w-]*"
    r"(?: [a-z][\w-]*)?\W*$")
# Charges with no rule word, each refused when the sentence points at the moment ("stop using that one").
_CHARGE_RX = re.compile(
    # a plural kind needing a count: "PRs need two approvals", "hotfixes require 2 reviewers"
    r"^" + _NOT_SUBJECT + r"(?:[a-z][\w-]* ){0,3}[a-z][\w-]*s (?:need|require|get) (?:at least )?"
    r"(?:\d+|two|three|four|five) [a-z]|"
    # who does a kind of work: "version bumps are my job", "I review every auth change myself", "merging
    # is on me", "leave the changelog to me"
    r"^(?!(?:that|this|it|which)\b)[^,;]*?\b(?:is|are) (?:my|our|[a-z]+'s) (?:job|call|responsibility|"
    r"department|domain|area)\b|"
    r"\b(?:is|are) (?:on me|mine to \w+|for me to \w+)\b|^leave (?:[\w/.-]+ ){1,4}to me\b|"
    r"^i (?:always |only |personally )?(?:review|merge|approve|handle|write|cut|tag|deploy|release|bump|"
    r"own|sign off on|run|do) (?!(?:it|this|that|them)\b)[^,;]*\bmyself\b|"
    # a kind of thing in a manner, asked without a verb: "Comments in English please", "commit messages in
    # the imperative please"
    r"^" + _NOT_SUBJECT + r"(?:[a-z][\w-]* ){0,2}[a-z][\w-]*s (?:in|as|with|under|on|via) [^,;]{1,30}?,? "
    r"please\b|"
    # a practice given up for good: "stop using moment.js", "quit adding type: ignore"
    r"^(?:stop|quit) (?:using|adding|writing|calling|importing|putting|committing|creating|doing)\b")
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
    r"\b(?=.*\b(?:before|until|unless|(?<!the )only|through|via|behind|out of|away from|first|by hand|"
    r"under)\b))")
# A kind of thing that conforms to something, as a standing arrangement: "Tests mirror the src/ layout",
# "handlers follow the same shape", "modules import only from core".
_CONFORM_RX = re.compile(
    r"^" + _NOT_SUBJECT + r"(?:[a-z][\w-]* ){0,2}[a-z][\w-]*[^s\W']s (?:always |only |all )?"
    r"(?:mirror|follow|match|mimic|extend|inherit from|import only|reuse|wrap|subclass)\b")
# "We squash commits on develop": the team's present-tense habit, as a convention.
_WE_DO_RX = re.compile(
    r"^we (?!(?:are|were|have|had|will|would|can|could|should|might|may|did|do|don't|need|want|plan|hope|"
    r"think|know|got|went|saw|see|met|lost|made|took|found|ran|built|sent|left|broke|came|tried|just|also|"
    r"still|get|hit|lose|love|like|hate|all|both)\b)[a-z-]+(?<!ed) [a-z]")
_SOFT_RX = re.compile(r"\b(?:don't|do not|dont|should(?:n't| not)?|avoid|instead of)\b")
# Shapes of a standing rule that name no always/never, by what makes a sentence generic rather than about
# this turn: a condition on a kind of event ("if a migration touches X, …", "when you add a dependency, …"),
# a scope ("in this repo", "around here"), a limit ("under 700 lines", "max one … per"), a restriction
# ("… only", "nobody but ops …"), a permission ("not allowed to"), a sign-off, a negated present habit of
# a generic subject ("prod keys don't leave the vault"), a habitual passive ("releases are cut from …"),
# an ordering of bare steps ("lint, then tests, then the PR"). Each is refused when the sentence points at
# the moment (`_DEICTIC`) — "if it fails, tell me" is a one-off.
_STANDING_RX = re.compile(
    r"^(?:if|when|whenever|any ?time|every time|each time|once) (?!(?:you(?:'re| are) (?:done|finished|ready|"
    r"back|there|free|here)|i(?:'m| am)|it|this|that|they|we(?:'re| are))\b)"
    r"(?:(?<=ever )|(?<=time )|(?!(?:the|your|my) [^,;]{3,}[,;] (?:just |please |then )?"
    r"(?:(?:tell|ping|show|message|notify|text|call) me|let me know)\b))[a-z][^,;]{3,}[,;] \w|"
    r"\blike everything else here\b|\bhere,? full stop\b|\bfull stop\b|"
    r"\b(?:under|over|at most|no more than|at least|max(?:imum)?|up to) (?:(?:roughly|about|around) )?"
    r"(?:\d[\d,]*|one|two|three|four|five|"
    r"ten) (?:lines?|files?|commits?|retries|minutes?|hours?|days?|releases?|changes?|reviewers?|"
    r"migrations?|prs?|pull requests?|dependencies|tests?|[kmg]b|ms|seconds|percent|requests|replicas|"
    r"versions?|items|calls|jobs|workers|instances)\b|"
    # an obligation of a kind of thing, or of whoever does it: "seeds have to be fixed", "gotta keep …"
    r"\b(?:has to|have to|gotta|got to|is expected to|are expected to|needs to|need to) "
    r"(?!(?:go(?:,|$| now| home| away)|leave|run "
    r"out|wait|check|look|think|talk|ask you|know|see|fix (?:it|this|that))\b|(?:run|head|jump|dash)(?:,|$| "
    r"back\b| off\b))[a-z]+\b|"
    # a quantified subject and any present verb: "anything touching payments needs …", "every service
    # exposes /healthz", "all timestamps are stored in UTC"
    r"(?:^|[,;] (?:so )?)(?:every|each|any|all|anything|everything|nothing|no) (?!(?:\d|the\b|day|night|"
    r"week|month|"
    r"year|morning|afternoon|evening|time|other|of (?:it|this|that|them|these|those)|good|worries|idea|"
    r"problem|clue|luck|way|rush)\b)(?:[^\s,;]+ ){1,6}?(?:(?:is|are) (?:\w+ed|\w+en|kept|run|built|done|"
    r"made|set|put|sent|held)|needs|need|gets|get|goes|go|comes|"
    r"has|have|must|should|requires|stays|ships|exposes|uses|runs|lands|follows|carries|waits|"
    r"(?!(?:is|was|has|does|this|its|thus|plus|yes)\b)[a-z]+s)\b|"
    r"^(?:a|an) (?:new )?[\w-]+(?: [\w-]+)? (?:needs|requires|gets|must|should|has to|goes)\b|"
    r"^" + _NOT_SUBJECT + r"(?:[a-z][\w-]* ){0,5}[a-z][\w-]*s (?:need|get|require) (?:a|an|to|\w+s)\b|"
    # a permission with its bounds: "you're free to refactor inside tests/", "feel free to …, as long as"
    r"\b(?:you're|you are) free to\b|^feel free to\b.*\bas long as\b|"
    r"^(?:make sure|ensure|check that) (?:every|each|all|any|no)\b|"
    r"\bwithout (?:my |a |an |prior )?(?:sign-?off|approval|review|ok|okay|asking)\b|"
    r"^[a-z]+ first, [a-z]+ (?:second|after|later)\b|"
    r"\b(?:once|twice) (?:a|per|every) (?:day|week|month|quarter|year|sprint)\b|"
    r"\bevery \d+ (?:days|weeks|months|hours|minutes)\b|\bnot optional\b|"
    r"\b(?:is|are|happens?|runs?) (?:every|each) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"day|week|morning|night|sprint)\b|"
    r"\b(?:happen|happens|run|runs) (?:only )?(?:on )?(?:monday|tuesday|wednesday|thursday|friday|weekdays|"
    r"weekends)\b|\bonly [a-z ]{1,30} (?:get|gets) in\b|"
    r"^max(?:imum)? (?:\d+|one|two|three) \w+|"
    r"\b[a-z]+s only\W*$|\bonly (?:happen|happens|run|runs|go|goes|ship|ships|land|lands) \b|"
    r"(?:^|, )(?:nobody|no one) (?:but|except|other than) [\w-]+(?: [\w-]+)? [a-z]+s\b|"
    r"\b(?:not|never) allowed to\b|\b(?:is|are|'re|'s) not (?:allowed|permitted)\b|"
    r"\bneeds? (?:sign-?off|approval|a review|review|an? (?:ok|okay|ticket|reviewer)|splitting|"
    r"(?:a |an )?\w+ from (?:me|[A-Z]?[a-z]+))\b|"
    r"(?:\b(?:is|are)|'s) (?:frozen|read-only|generated|owned by|third-party|a no-go|off the table)\b|"
    r"^" + _NOT_SUBJECT + r"[a-z][\w/.-]*(?: [a-z0-9][\w/.:-]*){0,4}? (?:don't|doesn't|do not|does not|"
    r"never|won't) (?!(?:know|have|need|seem|understand|care|mind|think|work|matter|exist|compile|pass|"
    r"load|start|run|build)\b)[a-z]+\b|"
    r"^we (?:don't|do not|never) (?!(?:know|have|need|see|get|understand|care|mind|think|want|like)\b)"
    r"[a-z]+\b|"
    r"^" + _NOT_SUBJECT + r"[a-z][\w/.-]*(?: [a-z0-9][\w/.:-]*){0,4}? (?:is|are) (?:cut|rotated|done|built|"
    r"tagged|reviewed|signed|deployed|run|made|kept|written|squashed|released|merged|handled) "
    r"(?:from|every|by|on|through|in|weekly|daily|nightly|monthly|before|after|only)\b|"
    r"^[a-z][\w-]*(?: [a-z][\w-]*){0,3}, then [a-z][\w-]*(?: [a-z][\w-]*){0,3}, then\b|"
    r"\b(?:first|1st) and (?:the )?[a-z][\w-]* (?:second|last|after)\b|"
    r"\b(?:goes|go) on (?:[a-z]+ )?branch|"
    r"(?:^|, (?:so )?)(?:nothing|no [a-z]+)(?: \S+){0,4}? (?:gets|goes|ships|lands|leaves|merges|runs)\b|"
    r"^no \S+(?: \S+){0,3} (?:for|in|on|to|without|before|during)\b|"
    r"\b[\w/.-]+, not [\w/.-]+|"
    # a condition on what the agent is about to do: "before you tell me it's done, run the tests"
    r"^(?:before|after) you [a-z]+\b[^,;]*[,;] \w|"
    # what the agent does before a kind of act, not when one thing is ready ("ping me when CI is green")
    r"^(?:ask|check with|ping|tell|warn|show) me (?:first\b|(?:before|whenever|every time) you\b|"
    r"if you (?:ever|need|want|plan)\b)|\bask (?:me )?first\b|"
    r"\b(?:is|are) reserved for\b|\b(?:capped|limited) (?:at|to)\b|\bcan [a-z]+ [^,;]*\bbut not\b|"
    r"^it's (?:fine|ok|okay|alright) to [a-z]+ .*\b(?:for|when|if|as long as)\b|"
    r"\b(?:at|by) the (?:end|start) of (?:each|every) \w+|"
    r"\bof (?:each|every) (?:month|week|quarter|sprint|year)\b|"
    r"\b(?:first|last) (?:monday|tuesday|wednesday|thursday|friday) of\b|"
    r"(?:^|: |; )no (?:new )?\S+(?: \S+){0,3} (?:after|before|during|on|until)\b|"
    # a generic subject that cannot do something: "gameplay code in the update loop can't allocate"
    r"^" + _NOT_SUBJECT + r"[a-z][\w/.-]*(?: [a-z0-9][\w/.:-]*){0,5}? (?:can't|cannot|can not|may not) "
    r"(?!(?:find|connect|reach|load|see|open|start|run|resolve|import|read|write|access|parse|compile|locate|"
    r"get|seem|be|figure|tell|remember|reproduce)\b)[a-z]+\b|"
    # a time window: "the X job runs after 9:00", "deploys happen between 10 and 4"
    r"\b(?:runs?|happens?|starts?|goes out|ships?) (?:only )?(?:after|before|between|from|until) "
    r"\d{1,2}(?::\d\d)?\b|"
    # what a kind of thing is for: "env vars are (only) for local runs"
    r"\b[a-z]+s (?:are|is) (?:only |just )?for [a-z]+\b")
# Signs of a standing rule that a one-off request wears too ("fix the lint errors in this repo", "restart
# nginx first, then check the logs", "write a poem instead"): they count only when the sentence is not a
# task for now (`_one_off`).
_SCOPE_RX = re.compile(r"\b(?:in|for|on|across) (?:this|the|our) (?:repo|repository|codebase|project|team|"
                       r"company|org|monorepo)\b|\baround here\b")
_SEQUENCE_RX = re.compile(r"\b[\w/.-]+(?=,? first,? then\b)")
_INSTEAD_RX = re.compile(r"\binstead\W*$")
# An imperative whose verb does a piece of work that ends: the request of a turn, unless something makes it
# general (`_GENERAL`).
_TASK = re.compile(
    r"^(?:(?:please|pls|can you|could you|go ahead and|now|just|let's) )*(?:set up|setup|fix|run|check|"
    r"list|find|clean(?: up)?|update|upgrade|bump|refactor|rename|delete|remove|add|create|install|migrate|"
    r"convert|replace|move|look (?:at|into|for|through)|investigate|review|audit|scan|search|grep|count|"
    r"format|lint|build|deploy|push|merge|revert|restart|reboot|open|close|generate|document|write|test|try|make|get|do|"
    r"start|stop|finish|debug|read|show|tell|explain|summari[sz]e|draft|go through|port|translate|profile|"
    r"measure|compare|collect|gather|print|dump|export|import|reinstall|tidy|sort|organi[sz]e|split|sync|"
    r"pull|fetch|commit|release|ship|roll back|wipe|reset|kill|re-?run|redeploy|patch|implement|scaffold|"
    r"configure|enable|disable|turn (?:on|off)|go over|draw|compose|sketch)\b")
_GENERAL = re.compile(
    r"\b(?:every|each|any|always|never|whenever|ever|from now on|going forward|in future|by default|"
    r"nightly|daily|weekly|everything|anything|nothing|no one|nobody|unless|as long as|"
    r"all (?!(?:the|of)\b))\b|"
    r"\b(?:when|if|after|before|once|until) you\b|\bbefore (?:\w+ing|merging|pushing)\b")
# What the agent is to report back, in a sequence: "push to staging first, then tell me".
_REPORT_BACK = re.compile(r"\bthen (?:(?:tell|ping|show|message|notify) me|let me know|report)\b")
# A standing instruction that needs no rule word: keep a kind of thing some way ("keep migrations backwards
# compatible"), stick to a tool, squash or rebase before a step.
_STANDING_DO_RX = re.compile(
    r"^(?:please |pls )?(?:keep|stick to|stick with|keep using|squash|rebase|pin|tag|sign|write|note) "
    r"(?!(?:it|this|that|them|these|those|me|going|on|at|trying)\b)[\w/.-]+(?: [\w/.-]+){0,5}? "
    r"(?:before|after|when|whenever|for (?:at least|every|each|all)|in the same|going forward|"
    r"backwards?[ -]compatible|in this|for this|every|each)\b")
# A standing favour asked as a question: "Could you always run the type checker before …?"
_FAVOUR_RX = re.compile(r"^(?:can|could|would|will) you (?:please |pls |mind )?(?:always|never|from now on|"
                        r"in future|going forward|every time|make (?:it )?a habit)\b|"
                        r"^(?:going forward|from now on|in future|in the future),? "
                        r"(?:can|could|would|will) you\b")
# Not a rule whatever its words: an idiom ("never mind"), a verbless complaint ("always the same test"),
# a hedged plan ("we should probably look at it at some point").
_NOT_RULE = re.compile(r"\bnever mind\b|^always the same\b|\bshould probably\b|\bat some point\b|"
                       r"\bmaybe\b|\bperhaps\b|"
                       # a guess, not a duty: "must be a cache issue", "you must have misread"
                       r"\bmust (?:be (?:a|an|the|some|my|your|our|that|this)\b|have (?:been|\w+ed|\w+en|"
                       r"misread|read|done|run|made|forgot|meant|seen|left)\b)|"
                       r"\b(?:has to|have to|must|gotta) be (?:something|some|a|an|that|this|it)\b|"
                       # a measurement: "each worker handles about 200 jobs a minute"
                       r"(?<!under )(?<!over )(?<!up to )\b(?:about|around|roughly|approximately|~) ?\d|"
                       # what keeps happening or happened: "we always seem to hit this", "we never got it"
                       r"\b(?:i|we|they|he|she|it|you|this|that) (?:always|never) "
                       r"(?:actually |really |even )?(?:seems?|seemed|got|saw|had|heard|noticed|found|knew|"
                       r"thought|\w+ed)\b|\balways seems?\b|"
                       r"\b(?:every time|whenever) i\b|"
                       # someone else's rule, quoted and discussed; a hedge; a reply; leaving it be
                       r"\b(?:says|said|say|told me|according to|reads)\b:? ['\"“‘]|\banymore\b|"
                       r"\bas far as i (?:can tell|know)\b|\bafaik\b|^no, |^no need\b|"
                       # which one of a set: "only the first chart", "I mean the second function"
                       r"\bonly (?:do )?the (?:first|second|third|last|one|two)\b|\bi mean\b|"
                       r"\bnot the (?:first|second|other|last)\b|"
                       r"\bonly the [\w-]+(?: [\w-]+)? (?:fails?|failed|breaks?|broke|passes|works?|"
                       r"looks?)\b")
# A lead-in a rule may wear: politeness ("please, when you add …"), or the incident behind it ("after last
# month's outage, any config change …"): the rest is classified alone.
_POLITE = re.compile(r"^(?:please|pls|plz|btw|also|oh|fyi|heads up|so|and|ok|okay|right|one more thing)"
                     r"[,:—-]*\s+")
_CAUSE_LEAD = re.compile(r"^(?:after|since|because of|given|following) "
                         r"(?:[^,;]{3,80}, |[^,;]{3,80}? (?=we |i |"
                         r"every |all |any |nothing |no ))")
# The shapes anchored at a sentence's start read past a short lead-in ending in a colon ("Before you start:
# No force pushes to develop."), but not past an error's name ("Error: no tests in src/").
_LEAD_IN = re.compile(r"^(?:[a-z][\w']*,? ){0,3}[a-z][\w']*:\s+")
_NOT_LEAD_IN = re.compile(r"error|warning|exception|fatal|failed|failure|traceback")
# A sentence about the present moment reports; it does not lay down a rule ("Only two tests fail now").
_NOW = re.compile(r"\b(?:now|today|tonight|this (?:time|week|morning)|yet|currently|at the moment|for now)\b")
# "We're on date-fns now" says what holds from here on, not what holds at the moment.
_SETTLED = re.compile(r"\bwe(?:'re| are) (?:on|using|with) [^,;.]{1,40}? now\b|\bwe use [^,;.]{1,40}? now\b")
# "this repo" names a scope, not the moment.
_SCOPE_THIS = re.compile(r"\b(?:this|the) (?:repo|repository|codebase|project|team|company|org|monorepo)\b|"
                         r"\baround here\b|\beverything else here\b|\bhere,? full stop\b|"
                         r"\bthere(?:'s| is| are)\b|^it's (?:fine|ok|okay|alright) to\b")
# After a kind named indefinitely ("if a test is flaky", "any new module"), or past a clause's break ("tests
# don't talk to the real API — mock it"), "it" and "them" point back at what came before.
_INDEFINITE = re.compile(r"\b(?:a|an|any|every|each)\b|\s[—–-]\s|;\s|"
                         r",? (?:so|because|since|otherwise|or else) |"
                         # a clause of its own after a comma: "don't run e2e locally, CI does that"
                         r", (?=(?:[a-z][\w.-]* ){1,2}(?:does|do|handles|covers|owns|runs)\b)")
# After an instruction, the reason it gives: "don't run the e2e suite locally, it takes forty minutes".
_REASON = re.compile(r", (?=(?:it|they|that)(?:'s|'re| is| are| takes| breaks| costs| eats| slows)\b)")
_ANAPHOR = re.compile(r"\b(?:it|them|they|that)\b")
_DEICTIC = re.compile(r"\bstill (?:has|have|is|are|open|waiting|running)\b|"
                      r"\b(?:this|that|it|these|those|yet|now|today|here|there|again|anymore|for now)\b")
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
    r"belongs|owns|manages|maintains|leads|holds|exposes|talks to|pays|hosts|handles|approves|ends up|"
    r"end up|was split|were split)\b")
# Something a fact names: a path, a host, a number, code, a CamelCase or capitalised name inside the
# sentence ("Argo CD", "Stripe"), not the capital that opens it.
_CONCRETE = re.compile(r"[/:]\w|\w\.\w|\d|`|\b[A-Z][a-z]+[A-Z]\w*|\b[A-Z]{2,}\b|"
                       r"(?<=[a-z,] )[A-Z][a-z]+")
# Who does what: "Ruth is the tech lead for checkout", "Aiko is my manager".
_ROLE = re.compile(r"\b(?:is|are) (?:the|our|my) (?:[\w-]+ ){0,3}(?:lead|owner|maintainer|contact|admin|"
                   r"manager|expert|on-call|point person|boss)\b")
_ABOUT_OWNER = re.compile(r"\bmy name is\b|\bcall me\b|\bi(?: am|'m) (?:a|an|the)\b|\bi work (?:at|on|for)\b|"
                          r"\bmy (?:team|company|role|timezone|time zone)\b")
# A run of words someone else wrote, quoted inline ("Got 'new code must use the async client' from the SDK"):
# read as one opaque thing, so its "must" is not the owner's. A quoted word or two ('any', `pnpm`) stays.
_QUOTED = re.compile(r"(?<![\w'])'[^'\n]*?\s[^'\n]*?\s[^'\n]*?'(?!\w)|\"[^\"\n]*?\s[^\"\n]*?\s[^\"\n]*?\"|"
                     r"“[^”\n]*?\s[^”\n]*?\s[^”\n]*?”|`[^`\n]*?\s[^`\n]*?\s[^`\n]*?`")
# A line that is a tool's message pasted inline, not the owner's words: a log level or an error code
# opening it ("npm ERR!", "WARN deprecated:", "[error]", "TS2322:", "eslint warning:"), or a lead-in
# saying a tool or someone else said it ("eslint says:", "getting this:", "the linter complains:").
_TOOL_LINE = re.compile(
    r"^\s*(?:[\w@./-]+\s+){0,2}?(?:ERR!|(?:ERROR|WARN(?:ING)?|FATAL|PANIC|DEPRECATED)\b|"
    r"\[(?i:err|error|warn|warning|fatal|info|debug|notice)\]|(?i:[a-z]{1,4}\d{3,5})\s*:)|"
    r"^\s*(?!(?i:a|an|the|one|big|fair|final|last|quick|friendly|general|important|my|our)\s)"
    r"(?:[\w@./-]+\s+){1,2}(?i:error|warning|warn|deprecat(?:ed|ion)(?:warning)?|fatal|panic|hint)\s*[:!]")
_QUOTING = re.compile(
    r"^\s*(?:(?P<who>(?:[\w@'./-]+\s+){1,3}?)(?:says?|said|saying|prints?|printed|printing|complains?|"
    r"complained|complaining|reports?|reported|shows?|showed|showing|outputs?|throws?|threw|throwing|"
    r"spits? out|gives?|gave|giving|getting|got|gets|seeing|returns?|returned|warns?|warned|tells? me|"
    r"told me|keeps? (?:saying|printing|showing|throwing|giving))|getting|got|seeing|still getting)"
    r"(?:\s+(?:this|that|me|us|back|again|now|the following))*\s*[:—–]\s*\S", re.I)
_HEAD = 300  # of a line, all `_TOOL_LINE` and `_QUOTING` read
_MINE = re.compile(r"\b(?:i|we|as i)\b", re.I)
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_APPROVAL = re.compile(r"^\W*(?:yes|yep|yeah|ok|okay|sure|go ahead|go for it|approved?|lgtm|sounds good|"
                       r"do it|ship it|agreed|perfect)\b")
_OWN = frozenset({"instruction", "statement"})
# A sentence that only points at a rule said before — a reminder ("don't forget my rule about pnpm",
# "remember what I said about force pushes", "my pnpm rule still stands") or a citation ("as my rule about
# pnpm says") — says no rule of its own: the rule is the note, where he said it. One that says the rule too
# ("don't forget: always use pnpm", "don't forget my rule about pnpm, never npm") is read as ever.
_RULE_NOUN = r"(?:rules?|instructions?|guidance|conventions?|polic(?:y|ies)|preferences?|advice)"
# Words naming a topic only: "my preference for tabs", "my policy against force pushes" say the rule itself.
_ON = r" (?:about|on|regarding|re|concerning|around) [^.;:!?,]+?"
_EARLIER = r"(?:(?:earlier|previous|old|standing|usual|existing|last|original) )?"
# His own rule: "my (pnpm) rule (about …)", "the rule about …", "what I said (about …)"; not "the lint rules",
# a tool's.
_A_RULE = (r"(?:(?:my|our) " + _EARLIER + r"(?:[\w-]+ ){0,3}?" + _RULE_NOUN + r"(?:" + _ON + r")?|"
           r"(?:the|that|this|those|these) " + _EARLIER + r"(?:" + _RULE_NOUN + r"|notes?)" + _ON + r"|"
           r"what i (?:said|told you|wrote|mentioned|asked for)(?: (?:earlier|before|previously|yesterday|"
           r"last time))?(?:" + _ON + r")?)")
_REFERS_ONLY = re.compile(
    r"(?:(?:please|pls|and|also|so|just|oh|btw|again|ok|okay|hey|but)\b,? )*"
    r"(?:(?:make sure|be sure) (?:that )?(?:you )?|you )?"
    r"(?:(?:(?:don't|dont|do not|never|not) (?:ever )?(?:forget|ignore|disregard|overlook)|remember|recall|"
    r"(?:keep|bear) in mind|mind|heed) " + _A_RULE + r"|(?:as|like|per|as per) " + _A_RULE +
    r"(?: (?:says?|said|goes|states?))?|" + _A_RULE + r" (?:still )?(?:stands|holds|applies))"
    r"(?: (?:again|please|too|as well|here|this time))*\W*")
_HYPOTHETICAL = re.compile(r"^\W*(?:if|when|whenever|unless|in case|once|should)\b")


def drafts(session: int, entries: Sequence[MinedEntry], from_start: bool) -> list[Draft]:
    """Every observation the mechanical observer finds in `entries` (of session `session`, in order);
    `from_start`: the entries open the session, so its first instruction is its context."""
    out = list(_owner_drafts(session, entries, from_start))
    out.extend(_item_drafts(session, entries))
    return out


def classify(sentence: str, tag: str, before: str = "") -> tuple[str, str, float, float] | None:
    """(type, priority, confidence, importance) of one sentence of the owner's prose, or None when it is
    not a lasting note (a question, a one-off instruction, chatter, a tool's message he quotes): its shapes,
    and where they read no rule, preference, habit, goal or event, its words (`rule_words`). `before`: what
    precedes the sentence on its line ("npm ERR! " before "Always run …")."""
    if quoted_message(before[:_HEAD] + sentence[:_HEAD]) or refers_only(sentence):
        return None
    found = shape(sentence, tag)
    if found is not None and found[0] not in ("fact", "context"):
        return found
    low = _QUOTED.sub("'…'", _BULLET.sub("", sentence[:LONGEST]).strip().lower())
    if tag in _OWN and len(low.split()) >= 3 and not low.rstrip("\"')").endswith("?") \
            and not _NOT_RULE.search(low) and not _NOW.search(low) and not _points_at_now(low) \
            and rule_words.model().says_rule(low):
        return _WORDED
    return found


def shape(sentence: str, tag: str) -> tuple[str, str, float, float] | None:
    """`classify` by the sentence's shapes alone."""
    if tag not in _OWN and tag != "question":
        return None
    s = _BULLET.sub("", sentence[:LONGEST]).strip()
    low = _QUOTED.sub("'…'", s.lower())
    if len(low.split()) < 3 or low.endswith(":") or quoted_message(s):
        return None  # a header ("Some ground rules for this repo:") names what follows; it is none
    lead = _LEAD_IN.match(low)
    body = low[lead.end():] if lead and not _NOT_LEAD_IN.search(lead.group()) else low
    while (polite := _POLITE.match(body)) is not None:
        body = body[polite.end():]
    if tag == "question" or low.rstrip("\"')").endswith("?"):
        return _RULE if _FAVOUR_RX.search(body) else None
    if _HABIT_RX.search(low):
        return _HABIT
    if _PREFERENCE_RX.search(low):
        return _PREFERENCE
    rule = _rule(low, body, tag) if not _NOT_RULE.search(low) else None
    if rule is not None:
        return rule
    if _GOAL_RX.search(low) and not _NOW.search(low) and not _points_at_now(low):
        return _GOAL  # "I want to look first" before "don't push yet" is this turn's wish
    if _INCIDENT_RX.search(low):
        return _INCIDENT
    if _EVENT_RX.search(low):
        return _EVENT
    if (_GENERIC_RX.search(body) or _WE_DO_RX.search(body) or _CONFORM_RX.search(body)) \
            and not _DEICTIC.search(body) and not _NOT_RULE.search(low):
        return _NORM
    if tag == "statement" and (_ABOUT_OWNER.search(low) or _ROLE.search(low)
                               or (_FACT_RX.search(low) and _CONCRETE.search(s))):
        return _FACT
    return None


def _rule(low: str, body: str, tag: str) -> tuple[str, str, float, float] | None:
    """The rule shapes checked before events and facts (the rest come after them, in `classify`)."""
    if (cause := _CAUSE_LEAD.match(body)) is not None:
        inner = shape(body[cause.end():], tag)
        if inner is not None and inner[0] == "rule":
            return inner
    if _RULE_RX.search(low):
        return _RULE
    settled = _SETTLED.sub("", low)
    now = _NOW.search(settled) is not None
    if (_NORM_RX.search(low) or _NORM_RX.search(body)) and not now:
        return _NORM
    if (_CHARGE_RX.search(low) or _CHARGE_RX.search(body)) and not now \
            and not _points_at_now(settled, tag == "instruction"):
        return _NORM
    if tag == "instruction" and _SOFT_RX.search(low) and not _points_at_now(low, True):
        return _SOFT
    step = _SEQUENCE_RX.search(body)
    weak = ((_SCOPE_RX.search(body) or _INSTEAD_RX.search(body)) and not _one_off(body)) or (
        step is not None and not _one_off(body[:step.end()]) and not _REPORT_BACK.search(body))
    if ((weak or _STANDING_RX.search(body) or _STANDING_DO_RX.search(body)) and not _points_at_now(body)
            and not now):
        return _NORM
    return None


def _one_off(body: str) -> bool:
    """Whether a sentence is a request of this turn: a task's imperative with an object ("restart nginx",
    "fix the lint errors in this repo") and nothing that makes it general ("every", "whenever you")."""
    task = _TASK.match(body)
    if task is None or not body[task.end():].strip(" ,."):
        return False
    # "find every usage" sizes the task; "before every push" makes it general
    rest = re.sub(r"^\s*(?:every|each|all|any)\b", "", body[task.end():])
    return not _GENERAL.search(rest)


def refers_only(sentence: str) -> bool:
    """Whether a sentence only points at a rule said before ("don't forget my rule about pnpm", "as my
    rule about pnpm says"): no rule, no task, no retraction."""
    if len(sentence) > _HEAD:
        return False  # a reminder is short; what runs on says more than it
    low = " ".join(_BULLET.sub("", sentence).lower().replace("’", "'").split())
    return _REFERS_ONLY.fullmatch(low) is not None


def quoted_message(line: str) -> bool:
    """Whether a line is a tool's message (or someone else's words) the owner quotes: "npm ERR! Always …",
    "eslint says: Every function must …", "getting this: warning: never …"; not "as I said: …"."""
    if _TOOL_LINE.match(line):
        return True
    said = _QUOTING.match(line)
    return said is not None and not _MINE.search(said.group("who") or "")


def _points_at_now(text: str, instruction: bool = False) -> bool:
    """Whether a sentence is about the moment (`_DEICTIC`), a scope ("this repo") and an anaphor of a kind
    named indefinitely before it ("if a test is flaky, quarantine it") or of a clause before a break not
    counting; in an `instruction`, the anaphor of the reason after it neither ("…, it takes an hour")."""
    text = _SCOPE_THIS.sub("", text)
    breaks = [m.end() for m in (_INDEFINITE.search(text), _REASON.search(text) if instruction else None) if m]
    if breaks:
        text = text[: min(breaks)] + _ANAPHOR.sub("", text[min(breaks):])
    return _DEICTIC.search(text) is not None


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
            # the head of the line the sentence stands on: a tool's name or level opens it
            line = e.text.rfind("\n", 0, span.start) + 1
            before = e.text[line:min(span.start, line + _HEAD)]
            if quoted_message(before + sentence[:_HEAD]):
                continue  # a tool's message he pasted inline: neither his rule nor his task
            if refers_only(sentence):
                continue  # a reminder of a rule said before: no note of its own, nor his task
            found = classify(sentence, span.tag, before)
            if found is None:
                if task_left and span.tag == "instruction" and len(sentence.split()) >= 3:
                    task_left = False
                    if (draft := _draft(session, sentence, ("context", "low", 0.7, 3.0), e, "explicit")):
                        yield draft
                continue
            task_left = task_left and span.tag != "instruction"
            if (draft := _draft(session, sentence, found, e, "explicit")) is not None:
                yield draft


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
            if owner and _HYPOTHETICAL.match(line.lower()):
                continue  # "if the build fails, tell me" reports no failure
            if owner:  # "that didn't work either" is about this turn alone
                found = (("event", "low", 0.6, 3.0) if _points_at_now(line.lower())
                         else ("event", "medium", 0.8, 5.0))
            elif e.kind == "tool_result":
                found = ("event", "low", 0.5, 3.0)
            else:
                found = ("event", "low", 0.6, 3.0)
        else:
            found = ("goal", "medium", 0.75, 5.0) if owner else ("context", "low", 0.6, 3.0)
        source_type = "explicit" if owner else "implicit" if e.kind != "tool_result" else "weak"
        if (draft := _draft(session, line, found, e, source_type)) is not None:
            yield draft


def _draft(session: int, sentence: str, found: tuple[str, str, float, float], e: MinedEntry,
           source_type: str) -> Draft | None:
    """The draft of one sentence: its list bullet left off, a secret in it never kept (the text says
    where one was, as the model's prompt does; each stretch of words around it is a quote of its own)."""
    kind, priority, confidence, importance = found
    sentence = _BULLET.sub("", sentence).strip()
    said = redact(sentence)
    if said != sentence:
        quotes = tuple(_cut(q) for q in _clear_of_secrets(sentence, said))
        if not quotes:
            return None
        text = _cut(said)
    else:
        quotes = (_cut(sentence),)
        text = quotes[0] if quotes[0] == sentence else quotes[0] + "…"
    return Draft(text=text, priority=priority, type=kind, confidence=confidence, source_type=source_type,
                 sources=tuple(Source(f"s{session}#{e.seq}", q) for q in quotes), importance=importance)


def _clear_of_secrets(sentence: str, said: str) -> list[str]:
    """The runs of whole words of `sentence` that `redact` (giving `said`) left as they were."""
    left = set(said.split())
    runs: list[str] = []
    start: int | None = None
    end = 0
    for w in [*re.finditer(r"\S+", sentence), None]:
        if w is not None and w.group() in left:
            start = w.start() if start is None else start
            end = w.end()
            continue
        if start is not None and re.search(r"[A-Za-z]{2}", run := sentence[start:end].strip(" ,;:")):
            runs.append(run)
        start = None
    return runs


def _cut(sentence: str) -> str:
    """At most MAX_TEXT − 1 characters, cut at a word (the part kept verbatim)."""
    sentence = sentence.strip()
    if len(sentence) < MAX_TEXT:
        return sentence
    cut = sentence.rfind(" ", 0, MAX_TEXT - 1)
    return sentence[: cut if cut > MAX_TEXT // 2 else MAX_TEXT - 1].rstrip()
