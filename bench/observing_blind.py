"""A held-out pool of owner sentences, written blind to the detector.

Written on 2026-12-02 by a helper session that did not read `observing/mechanical.py` (nor anything
else under `observing/`, `record/spans.py` or `bench/fit_observer.py`). These sentences are for
measuring the mechanical classifier on phrasings its author never saw. Never tune on them: once a
sentence here has shaped the detector, it no longer measures anything, and a fresh pool is needed.

Each entry is a template filled by `observing_data._fill` with the slots from `observing_data.slots`
(`{svc}`, `{Svc}`, `{w}`, `{w2}`, `{branch}`, `{host}`, `{path}`, `{dir}`, `{pkg}`, `{pkg2}`, `{n}`,
`{port}`, `{ver}`, `{Name}`, `{vendor}`).

- `RULES_BLIND`: lasting rules and conventions the owner lays down, in many grammatical shapes
  (imperatives, norms stated as facts, negated norms, conditionals, permissions, orderings, scopes,
  divisions of responsibility, limits, time windows, question-then-rule, polite requests). Each should
  still hold next month; each should become a `rule` note.
- `NOT_RULES_BLIND`: owner sentences that must not become rules: one-off requests for this turn,
  status reports, facts, preferences, events, questions, thanks and chatter, plans for today, and
  sentences that look like rules on the surface ("never mind", "don't run it yet", "first ... then")
  but are not.
- `PREFERENCES_BLIND`: lasting preferences about style, tone, tools and formats; each should become a
  `preference` note.
- `FACTS_BLIND`: lasting facts about the owner's setup (hosts, ports, people, where things live,
  versions); each should become a `fact` note.
"""

from __future__ import annotations

RULES_BLIND: list[str] = [
    # imperatives, with and without always / never
    "Always open a draft PR before you push anything to {branch}.",
    "run {pkg} for formatting, not {pkg2}",
    "never commit straight to main, even for typo fixes",
    "Tag every {Svc} release with the version number, no exceptions.",
    "squash your commits before merging, pls",
    "Don't ever paste customer emails into test fixtures.",
    "keep migrations for {svc} backwards compatible for at least one release",
    "write the changelog entry in the same PR as the change.",
    # norms stated as facts about how things are done
    "{Svc} releases are cut from {branch}.",
    "Hotfixes go through {branch} like everything else here.",
    "around here every schema change gets a rollback script.",
    "New endpoints in {svc} ship behind a feature flag.",
    "fyi: version bumps for {svc} are done by the release script, by hand is a no-go",
    "Secrets for {svc} are rotated every {n} weeks.",
    # negated norms
    "prod keys don't leave the vault.",
    "we don't vendor dependencies in this repo, {dir}/ is the one legacy exception",
    "Nothing in {path} gets a print statement; use the logger.",
    "We do not hand-edit lockfiles.",
    "tests don't talk to the real {vendor} API — mock it.",
    "No force-pushes to shared branches.",
    # conditionals
    "if a migration touches {svc}, ping {Name} first",
    "When you add a dependency, note why in the PR description.",
    "If CI is red on main, stop and fix that before starting anything new.",
    "whenever you change the public API of {svc}, bump the minor version",
    "If a test is flaky, quarantine it and file a ticket; don't just rerun until it passes.",
    "any time you touch {path}, run the {w} benchmarks too",
    # permissions / prohibitions
    "nobody but ops touches {host}",
    "Only {Name} is allowed to approve changes to the billing tables.",
    "you're not allowed to merge your own PRs, even small ones",
    "Deploys to {host} need sign-off from {Name}.",
    "heads up — the {svc} prod database is read-only for us, all writes go through the API",
    # ordering rules
    "lint, then tests, then the PR.",
    "Rebase on {branch} before asking for review, every time.",
    "update the docs first and the code second when the API changes",
    "Schema migration goes out before the code that needs it, never the other way round.",
    # scope rules
    "{dir}/ is generated — edit the templates instead.",
    "Leave {path} alone; it's owned by the platform team.",
    "anything under {dir} is third-party code, so patches go upstream rather than in here",
    "The {w} module is frozen until the rewrite lands; bug fixes only.",
    # division of responsibility
    "{Svc} config lives in {path}; env vars are only for local runs.",
    "Retries belong in the client, not in {svc} itself.",
    "validation happens at the API edge, the {w} layer assumes clean input",
    "Logging setup is the app's job — libraries in this repo never configure handlers.",
    # quantity limits
    "Keep PRs under {n}00 lines of diff.",
    "no more than {n} retries against {vendor}, then give up and alert",
    "Functions over 50 lines need splitting before review.",
    "Max one migration per PR.",
    # time windows
    "No deploys on Fridays after 3pm.",
    "prod deploys of {svc} only happen between 10 and 4 on weekdays",
    "Database maintenance on {host} is Sunday mornings only.",
    # question then rule
    "why is this in main? feature work goes on branches.",
    "Who added {pkg2} back? We use {pkg} here, full stop.",
    "wait, are these tests hitting the network? Unit tests must run offline.",
    # politeness
    "please keep using {pkg} for this repo",
    "Could you always run the type checker before you hand something back to me? Thanks.",
    "pls stick to {pkg} in {svc} going forward, {pkg2} caused us grief",
    # British / American variants and misc shapes
    "Initialise the {w} cache lazily; don't do any I/O at import time.",
    "All user-facing strings go through the translation catalogue.",
    "btw, from now on every new module needs a docstring at the top.",
    "going forward, pin {pkg} to an exact version in {svc}'s requirements",
]

NOT_RULES_BLIND: list[str] = [
    # one-off requests for this turn
    "rerun the {svc} tests",
    "can you look at {path}?",
    "don't bother with the docs for now",
    "Please add a test for the empty-list case in {path}.",
    "bump {pkg} to the latest and see what breaks",
    "rename {w} to {w2} in that function and rerun.",
    "Could you write a quick script to count the rows in the {w} table?",
    "revert your last change to {path}, it broke the import",
    "just comment out the {w} check for this run",
    "try it with port {port} instead",
    # look like rules but are one-off or reported
    "never mind, it works",
    "don't run it yet",
    "first check the logs then tell me what you see",
    "it always fails on CI, can you look?",
    "Never seen this error before — what does it mean?",
    "don't push that, I want to read it first",
    "only change the one file for now, we'll do the rest later",
    "Always the same flaky test, ugh. Rerun it.",
    "First fix the typo, then rerun the build.",
    "I never got the email from {Name} about {svc}, did it bounce?",
    "don't touch {path} in this PR, I have a branch open on it",
    "only {n} tests failing now, down from twenty",
    # status reports
    "the build is green again",
    "{Svc} tests pass locally on my machine.",
    "ok the {w} migration finished, took about {n} minutes",
    "CI's been slow all morning.",
    "looks like {host} is back up.",
    "The flaky test passed {n} times in a row now.",
    # facts (not rules)
    "{Svc} runs on {host}.",
    "{Name} wrote most of the {w} module.",
    "the staging db listens on {port}",
    "We're on Postgres {ver}.",
    # preferences (not rules)
    "I'd rather see the diff first",
    "honestly I like the second version better",
    "Personally I find {pkg} nicer to read than {pkg2}.",
    # events
    "we rolled back {svc} last night",
    "{Name} merged the {w} refactor this morning.",
    "We had an outage on {host} yesterday, about forty minutes.",
    "the {vendor} API changed their auth on Tuesday and broke our sync",
    "I upgraded Postgres on my laptop to {ver} over the weekend.",
    # questions
    "what does the {w} flag do?",
    "Is {path} still used anywhere?",
    "how long does the {svc} test suite usually take?",
    "Why did that deploy take so long?",
    "any idea who owns {dir}?",
    # thanks / chatter
    "thanks, that's perfect",
    "Nice, good catch.",
    "lol yeah that was my fault",
    "ok cool",
    "Sorry, I was in a meeting — where were we?",
    "great work on the {w} refactor!",
    # plans for today
    "today I want to finish the {svc} migration",
    "Let's tackle the {w} bug after lunch.",
    "plan for this afternoon: clean up {path} and open a PR",
    "I'll ask {Name} about the {svc} outage tomorrow.",
    "We should probably look at {svc} performance at some point.",
    "btw I'm off on Friday so let's wrap this up by Thursday",
    "fyi: I'm going to rerun the {w} job myself, skip it",
    "heads up — I just force-pushed {branch}, pull before you continue",
    "let's hold off on {pkg} until this PR is in",
]

PREFERENCES_BLIND: list[str] = [
    "I like short commit messages, one line if it fits.",
    "i prefer {pkg} over {pkg2} for anything new",
    "Give me the summary first and the details after, please.",
    "Keep your answers terse — I don't need the preamble.",
    "I'm a fan of early returns over nested ifs.",
    "tables over bullet lists when you're comparing options, pls",
    "I'd rather have small functions with good names than comments explaining big ones.",
    "Use British spelling in docs if you can; it's what I'm used to.",
    "no emojis in your replies please",
    "f-strings, not .format(), when it's up to you.",
    "I find type hints on everything easier to review.",
    "When you explain a change, show a before/after snippet — that's how I read best.",
    "Dataclasses feel cleaner to me than dicts for config.",
    "i like tests named after the behaviour, like test_rejects_expired_token",
    "Honestly, plain pytest asserts are my preference over unittest-style ones.",
    "Prefer pathlib to os.path in my code.",
    "I'm partial to dark-mode screenshots in the docs, if anyone makes them.",
    "Don't be so formal with me, casual is fine.",
    "my preference is for {pkg} in scripts, it's just nicer",
    "I'd like diffs shown as unified diffs rather than whole files.",
    "Numbered steps work better for me than paragraphs when you walk me through something.",
    "i'd lean towards fewer, bigger PRs on {svc} — easier for me to keep track",
    "For logs I like JSON lines so I can grep them.",
    "Tabs are awful; spaces, four of them, is what I like.",
    "When in doubt, ask me rather than guessing — I'd prefer the question.",
]

FACTS_BLIND: list[str] = [
    "{Svc} runs on {host}, port {port}.",
    "our staging box is {host}",
    "{Name} is the on-call lead for {svc}.",
    "The {svc} repo uses Python {ver}.",
    "Postgres on {host} is version {ver}.",
    "fyi the metrics dashboard lives at {host}:{port}",
    "{Svc}'s settings are in {path}.",
    "{dir} holds a fork of the {w} library we patched years ago.",
    "We pay {vendor} for email delivery.",
    "{Name} owns the {w} module and reviews most changes to it.",
    "My dev machine is an M2 Mac; the CI runners are Linux.",
    "The {svc} team is {n} people, split across two time zones.",
    "Our CI runs on self-hosted runners, {n} of them.",
    "{Svc} talks to {vendor} for payments.",
    "the release branch for {svc} right now is {branch}",
    "Redis for {svc} sits on {host} too.",
    "Our main database is about {n}00 GB.",
    "btw {Name} is our contact at {vendor}",
    "{Svc} was split out of the monolith about {n} years ago.",
    "The {w} cron job runs nightly at 2am UTC on {host}.",
    "Logs from {svc} end up in {dir}/logs on the box.",
    "{Svc} is on {pkg} now; the old deploy scripts still use {pkg2}.",
    "{Name} manages our {vendor} account and has the only admin login.",
    "The test fixtures for {svc} are in {path}.",
    "{Svc} exposes its health check on port {port}.",
]


def blind_pools() -> dict[str, list[str]]:
    """The four blind pools, keyed by what each sentence should (or should not) become."""
    return {"rule": RULES_BLIND, "not_rule": NOT_RULES_BLIND, "preference": PREFERENCES_BLIND,
            "fact": FACTS_BLIND}
