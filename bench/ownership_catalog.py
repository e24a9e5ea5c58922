"""What the ownership bench's owners own, and the words their owners use: hand-written pools, no templates of
the detector's.

Each `Cap` is one thing an owner can own (a skill, a command, an agent, an MCP server, a script the agent
wrote and ran, a machine, a past approach, a decision) with the text it is stored under (names, description,
body) and the tasks an owner asks for that it serves, written to share as few words as possible with that text
(the bench checks it in code and drops every case that still shares one). Each pool of owner phrasing is cut
in two halves by a fixed shuffle (`split`): `fit` for anyone tuning a detector, `report` for the figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from random import Random


@dataclass(frozen=True)
class Cap:
    key: str
    kind: str  # skill | command | agent | mcp_server | script | machine | approach | decision
    names: tuple[str, ...]  # the first is the name; the others are aliases an owner may use
    description: str
    body: str
    tasks: tuple[str, ...]


CAPS: tuple[Cap, ...] = (
    Cap(
        "portal",
        "skill",
        ("portal-relay", "the relay"),
        "Relays commands to a logged-in Chromium session over CDP and returns the page state.",
        "Start Chromium with --remote-debugging-port, attach, send clicks and keystrokes, read back the DOM.",
        (
            "grab last quarter's statement from the supplier website",
            "fetch the invoices off the vendor site for march",
            "pull the quarterly PDF the wholesaler publishes behind their sign-in",
            "get me the sales summary that the distributor posts online",
            "save the monthly statement from the supplier website to my folder",
            "bring down the vendor's price list, the one behind the account page",
        ),
    ),
    Cap(
        "slides",
        "skill",
        ("deck-builder", "the deck thing"),
        "Turns a markdown outline into a Keynote-compatible presentation with speaker notes.",
        "Reads headings as slide titles and bullet lists as content; writes .key and .pptx.",
        (
            "make a talk out of these notes for thursday",
            "I need something to show the board on friday, based on this text",
            "prepare visuals for my conference session from the draft",
            "turn this writeup into something I can present to investors",
            "put together pages to project at the all-hands from what I wrote",
            "build the pitch I'll give to the sponsors tomorrow",
        ),
    ),
    Cap(
        "receipts",
        "skill",
        ("receipt-ocr", "the scanner skill"),
        "Extracts vendor, date and total from photographed receipts into a CSV ledger.",
        "Uses tesseract, then a regex pass for amounts; appends rows to ledger.csv.",
        (
            "log this week's expenses from the pictures on my phone",
            "sort out what I spent on the trip, the photos are in downloads",
            "book my reimbursements from those snaps of the till slips",
            "tally the lunch costs from the images I took",
            "record the taxi fares from those photos for accounting",
            "file the travel costs, I took shots of every bill",
        ),
    ),
    Cap(
        "calendar",
        "skill",
        ("cal-sync", "the calendar bridge"),
        "Mirrors events between the work Exchange calendar and the family Google calendar.",
        "Two-way sync with a conflict rule: work wins during office hours.",
        (
            "make sure my kid's dentist appointment shows up where my boss sees it",
            "block tuesday afternoon for the school play everywhere",
            "put the holiday on both schedules so nobody books me",
            "why can't my wife see the offsite on her phone?",
            "copy the soccer practice times over to my office agenda",
            "keep home and office bookings from clashing next week",
        ),
    ),
    Cap(
        "translate",
        "skill",
        ("doc-translate", "the translator"),
        "Translates documents while keeping their formatting, using the DeepL API.",
        "Handles docx, pptx and markdown; glossary in glossary.tsv.",
        (
            "put the contract into german for the munich team",
            "the spanish partners need our onboarding guide in their language",
            "get the french version of the brochure done",
            "our japanese distributor can't read english, fix the manual for them",
            "render the privacy policy in italian",
            "localize the welcome letter for the dutch customers",
        ),
    ),
    Cap(
        "invoices",
        "command",
        ("/bill-client", "bill-client"),
        "Creates an invoice PDF from the hours logged in timesheet.csv and emails it.",
        "Rates per client in rates.toml; numbering continues from the last sent invoice.",
        (
            "charge acme for the work we did in october",
            "send northwind what they owe us for last month",
            "ask the agency to pay for the sprint we finished",
            "get paid by globex for the consulting days",
            "the quarterly fee for initech needs to go out",
            "request payment from umbrella for the audit",
        ),
    ),
    Cap(
        "release",
        "command",
        ("/ship-it", "ship-it"),
        "Tags a version, builds wheels, uploads to PyPI and drafts the GitHub release notes.",
        "Runs the tests first; refuses on a dirty tree.",
        (
            "publish the new version of the library",
            "put 2.4 out so users can install it",
            "cut a new drop of the package for the public",
            "make the fix available to everyone who pip installs us",
            "push out the patch to the index today",
            "let's get the next minor out the door",
        ),
    ),
    Cap(
        "standup",
        "command",
        ("/daily-digest", "daily-digest"),
        "Summarises yesterday's commits, merged pull requests and open reviews into a short status note.",
        "Posts to the #team channel when --post is given.",
        (
            "what did I get done yesterday? I have to tell the team in five minutes",
            "write my morning update for the squad",
            "draft what I say at the nine o'clock sync",
            "give me three lines about my progress for the meeting",
            "recap my work since monday for the lead",
            "prep my talking points for the morning huddle",
        ),
    ),
    Cap(
        "backup",
        "command",
        ("/snap-home", "snap-home"),
        "Runs restic against the NAS and prunes snapshots older than ninety days.",
        "Reads the repository password from the keychain item restic-nas.",
        (
            "make a copy of my files before I reinstall the laptop",
            "I'm about to wipe this disk, save everything first",
            "protect the photos in case the drive dies",
            "store a safety copy of the home directory tonight",
            "before the upgrade, keep my documents somewhere safe",
            "I worry about losing my work, duplicate it somewhere",
        ),
    ),
    Cap(
        "review",
        "agent",
        ("sql-reviewer", "the query reviewer"),
        "Reviews SQL migrations for locking, missing indexes and unsafe column drops.",
        "Reads the diff, explains risks, proposes a safer ordering.",
        (
            "check whether this schema change will take the site down",
            "is it risky to alter the orders table during business hours?",
            "look over the database changes in my branch before I merge",
            "will this table rename block writes on production?",
            "sanity check my postgres upgrade script",
            "tell me if this change to the users table is dangerous",
        ),
    ),
    Cap(
        "copy",
        "agent",
        ("copy-editor", "the editor"),
        "Edits prose for clarity and house style: short sentences, active voice, no jargon.",
        "Returns a diff with a reason per change.",
        (
            "tighten up the blog post before it goes live",
            "my newsletter reads clunky, smooth it out",
            "make this announcement sound less stiff",
            "polish the about page wording",
            "the grant application rambles, trim it",
            "clean up how the release blurb reads",
        ),
    ),
    Cap(
        "triage",
        "agent",
        ("bug-triager", "the triager"),
        "Labels new GitHub issues, finds duplicates and asks reporters for missing reproduction steps.",
        "Uses gh; never closes an issue on its own.",
        (
            "go through the pile of reports people filed overnight",
            "sort the incoming complaints on the tracker",
            "there are forty new tickets from users, make sense of them",
            "figure out which of the fresh problem reports are the same thing",
            "organize what came into the bug queue this weekend",
            "deal with the flood of user reports from the launch",
        ),
    ),
    Cap(
        "jira",
        "mcp_server",
        ("jira", "the jira server"),
        "npx -y @atlassian/mcp-remote https://example.atlassian.net",
        "",
        (
            "what's assigned to me this sprint?",
            "move my story to done",
            "which tickets are blocking the team right now",
            "open a task for the login bug on the board",
            "show me what's left in the current iteration",
            "who owns the payment epic on our board",
        ),
    ),
    Cap(
        "sentry",
        "mcp_server",
        ("sentry", "the sentry server"),
        "uvx mcp-server-sentry --auth-token-env SENTRY_TOKEN",
        "",
        (
            "why is the checkout page crashing for users today?",
            "what exceptions spiked after last night's deploy",
            "find out what broke for customers on the mobile app",
            "how many people hit that null pointer since tuesday",
            "show me the stack trace people are getting on signup",
            "which error is hurting the most users right now",
        ),
    ),
    Cap(
        "figma",
        "mcp_server",
        ("figma", "the figma server"),
        "npx -y figma-developer-mcp --stdio",
        "",
        (
            "match the spacing of the settings screen to what the designer drew",
            "pull the colors from the mockup into our theme",
            "does our button look like the one in the design file?",
            "get the icon sizes the design team specified",
            "copy the layout of the new onboarding screens from the mocks",
            "compare the page with the designer's frames",
        ),
    ),
    Cap(
        "logs",
        "script",
        ("rotate_logs.sh", "the log cleanup script"),
        "# compress nginx access logs older than a week and prune archives past sixty days",
        "find /var/log/nginx -name '*.log' -mtime +7 -exec gzip {} \\;\n"
        "find /var/log/nginx -name '*.gz' -mtime +60 -delete",
        (
            "the web server's disk is nearly full again",
            "free up space on the box that serves the site",
            "we got a low storage alert on the frontend host",
            "clear out the old request records eating the drive",
            "disk usage on the proxy hit ninety percent",
            "make room on the public-facing machine",
        ),
    ),
    Cap(
        "thumbs",
        "script",
        ("make_thumbs.py", "the thumbnail script"),
        "# resize every JPEG in a folder to 320px wide previews with Pillow",
        "from PIL import Image\nfor p in Path(src).glob('*.jpg'):\n"
        "    im = Image.open(p); im.thumbnail((320, 320))",
        (
            "the gallery loads too slowly, the pictures are huge",
            "shrink the product photos for the shop listing",
            "make small versions of the wedding shots for the site",
            "the catalog page takes ages because of the images",
            "prepare little previews of the portfolio pics",
            "scale down the photos before uploading them to the store",
        ),
    ),
    Cap(
        "dedupe",
        "script",
        ("dedupe_contacts.py", "the contacts script"),
        "# merge duplicate rows of a CRM export by normalized email and phone",
        "df = pd.read_csv(src); df['key'] = df.email.str.lower(); df.drop_duplicates('key')",
        (
            "our customer list has the same people three times",
            "clean up the mailing list before the campaign",
            "half of the leads are repeated, fix the sheet",
            "the newsletter goes out twice to some subscribers",
            "people keep getting doubled messages from us, sort the address book",
            "consolidate the client roster, lots of repeats",
        ),
    ),
    Cap(
        "certs",
        "script",
        ("renew_certs.sh", "the cert renewal script"),
        "# renew Let's Encrypt certificates with certbot and reload nginx",
        "certbot renew --quiet && systemctl reload nginx",
        (
            "browsers say our site is not secure since this morning",
            "the padlock is gone on the company homepage",
            "visitors get a scary warning when they open the shop",
            "https broke on the blog, it says expired",
            "chrome refuses to open our dashboard over tls",
            "the security warning on the website needs fixing before customers notice",
        ),
    ),
    Cap(
        "labcam",
        "machine",
        ("lab-cam", "the camera box"),
        "Raspberry Pi with the USB camera on the lab bench; ssh pi@10.0.4.21; the login is in 1Password "
        "under lab-cam.",
        "",
        (
            "check the camera on the lab machine",
            "is the experiment still running? take a look at the bench",
            "grab a picture of the petri dishes",
            "see whether the incubator door is shut",
            "snap an image of the setup so I can check it from home",
            "peek at the samples, I'm not in the building",
        ),
    ),
    Cap(
        "gpubox",
        "machine",
        ("gpu-box", "the training rig"),
        "Workstation with two RTX 4090 cards; ssh ml@gpu-box.local; the key is ~/.ssh/gpu_ed25519.",
        "",
        (
            "where can I run the big model overnight?",
            "my laptop is too slow for this fine-tune",
            "I need serious compute for the embeddings job",
            "find somewhere with enough VRAM for the 13B weights",
            "this inference takes forever here, move it to something beefier",
            "kick off the heavy job somewhere that won't melt my macbook",
        ),
    ),
    Cap(
        "nas",
        "machine",
        ("synology", "the nas"),
        "Synology DS920 in the closet at 192.168.1.40, web UI on port 5001; admin login kept in Bitwarden "
        "as home-nas.",
        "",
        (
            "where are the family videos from 2019?",
            "is there room left for the raw footage?",
            "check the health of the storage at home",
            "find the scans of our passports",
            "the home media library stopped playing on the tv",
            "see if the drives in the closet are ok",
        ),
    ),
    Cap(
        "printer",
        "machine",
        ("octopi", "the printer pi"),
        "OctoPrint on a Pi attached to the Prusa; http://octopi.local; API key in env OCTOPRINT_KEY.",
        "",
        (
            "start the bracket I modeled on the 3d machine",
            "how far along is the part that's fabricating?",
            "queue the phone stand to be made tonight",
            "is the nozzle hot yet for the next model?",
            "cancel the figurine, the bed came loose",
            "make another copy of that hinge in pla",
        ),
    ),
    Cap(
        "finetune",
        "approach",
        ("run-lora-oct", "the october run"),
        "python finetune.py --base mistral-7b --lora-rank 16 --lr 2e-4 --epochs 3 --warmup 100 "
        "--out runs/lora-oct",
        "",
        (
            "train it again with the setup we used last time",
            "redo the model adaptation the way that worked",
            "repeat the successful training but on the new data",
            "same recipe as before for teaching the model our tone",
            "retrain on the fresh support tickets like we did",
            "do that weight adaptation again, it gave good results",
        ),
    ),
    Cap(
        "scrape",
        "approach",
        ("crawl-batch-7", "the polite crawl"),
        "scrapy crawl shops -s DOWNLOAD_DELAY=2 -s CONCURRENT_REQUESTS=4 -o data/shops.jsonl",
        "",
        (
            "collect the store prices again without getting banned",
            "gather the competitor catalogs one more time, gently",
            "refresh the dataset of online shop offers",
            "get the latest product listings from those retailers like last time",
            "harvest the sellers' pages again without tripping their limits",
            "update our table of market prices from the web",
        ),
    ),
    Cap(
        "bench",
        "approach",
        ("load-test-nov", "the locust run"),
        "locust -f loadtest.py --users 500 --spawn-rate 50 --run-time 10m --host https://staging.example.com",
        "",
        (
            "see if the api survives black friday traffic",
            "hammer staging the way we did before the launch",
            "how many shoppers can the backend take at once?",
            "stress the service like last quarter and compare",
            "simulate the holiday rush against the test environment",
            "find the breaking point of the new checkout",
        ),
    ),
    Cap(
        "dbchoice",
        "decision",
        ("postgres for analytics", "the database decision"),
        "Decided: the reporting copy lives in Postgres with logical replication, not in BigQuery.",
        "",
        (
            "where should the dashboards read their numbers from?",
            "do we pay for a warehouse or keep it in house?",
            "pick a home for the metrics the finance team wants",
            "what store will the bi tool query?",
            "set up somewhere for the monthly charts to pull figures",
            "the analysts want their own copy of sales data, what's the plan?",
        ),
    ),
    Cap(
        "authchoice",
        "decision",
        ("passkeys only", "the login decision"),
        "Decided: sign-in uses passkeys with email magic links as fallback; no passwords stored.",
        "",
        (
            "how should people get into the app?",
            "design the account access flow for the beta",
            "users forget credentials all the time, what do we do",
            "what's our approach to authentication for the mobile client?",
            "should we build a forgot-secret screen?",
            "figure out how customers prove who they are",
        ),
    ),
    Cap(
        "hosting",
        "decision",
        ("fly for hosting", "the hosting decision"),
        "Decided: the app runs on Fly.io machines in ams and iad; Heroku is retired.",
        "",
        (
            "where do we put the new service so europeans get low latency?",
            "spin the side project up somewhere public",
            "which provider does the staging api go to?",
            "the team asks where production will run",
            "pick a cloud for the webhook receiver",
            "deploy target for the admin panel?",
        ),
    ),
    Cap(
        "wiki",
        "skill",
        ("notion-push", "the notion skill"),
        "Publishes markdown files as Notion pages under the Team Handbook.",
        "Keeps a page id per file in .notion-map.json so edits update in place.",
        (
            "put the onboarding doc where the whole company can read it",
            "share my meeting notes with the team space",
            "our handbook needs the new vacation policy",
            "make the runbook visible to the support folks",
            "get this how-to into the internal knowledge base",
            "the new hires should find the setup guide, upload it",
        ),
    ),
    Cap(
        "sms",
        "skill",
        ("twilio-notify", "the texting skill"),
        "Sends SMS alerts through Twilio to the on-call rota in oncall.yaml.",
        "Rate-limited to one message per number per minute.",
        (
            "wake up whoever is on duty, the site is down",
            "tell the on-duty engineer by phone that payments failed",
            "text the team that the outage is over",
            "page the person covering tonight",
            "ping the responder's mobile about the broken queue",
            "let the weekend duty person know the backup failed",
        ),
    ),
    Cap(
        "tax",
        "command",
        ("/vat-return", "vat-return"),
        "Computes the quarterly VAT return from bank CSV exports and the invoice ledger.",
        "Outputs the boxes of the HMRC form; never submits.",
        (
            "figure out what we owe the government this quarter",
            "prepare the numbers for the accountant's filing",
            "how much sales levy do we pay for q3?",
            "the revenue office deadline is next week, get the figures",
            "compute what goes in the form for the treasury",
            "sum up the duty on our sales since july",
        ),
    ),
)

# Owner requests that no asset of the catalogue serves (everyday coding and life questions).
UNSERVED: tuple[str, ...] = (
    "rename the variable cnt to count across the module",
    "why does this regex not match trailing spaces?",
    "explain what a monad is in two sentences",
    "what's the difference between a list and a tuple",
    "add type hints to the parser functions",
    "write a haiku about autumn",
    "convert this loop into a list comprehension",
    "how do I undo my last git commit but keep the changes",
    "what time zone is Auckland in",
    "fix the off-by-one in the pagination helper",
    "suggest a name for a cat that likes boxes",
    "is 1013 a prime number",
    "make the error message friendlier when the file is missing",
    "split this function into two smaller ones",
    "what does HTTP 418 mean",
    "sort these words alphabetically: pear, fig, apple",
    "why is my recursion hitting the limit",
    "reformat this JSON so it is readable",
    "what's a good book about habits",
    "remove the unused imports in utils",
    "how many days until the end of the year",
    "turn these bullet points into a paragraph",
    "what's the big-O of binary search",
    "add a docstring to the retry decorator",
)

# Ways an owner points the agent at what it already has ({x}: the asset as the owner calls it).
CORRECTIONS: tuple[str, ...] = (
    "hang on, isn't that what {x} is for?",
    "{x} does exactly this, go with it",
    "we built {x} for this a while back",
    "remember {x}? that handles it",
    "that's a job for {x}",
    "nope, {x} covers this. try it",
    "why not {x}? it's sitting right there",
    "uh, {x}. we made it for precisely this",
    "last month {x} sorted this out, reuse it",
    "you've got {x}, reach for it",
    "pretty sure {x} takes care of that",
    "go through {x} like before",
    "have you forgotten about {x}?",
    "{x} is the way, we set it up for this",
    "try {x} first",
    "no need to improvise, {x} exists",
    "you can do this with {x}",
    "look at {x}, it was made for this",
    "this is what {x} was written for",
    "ugh, {x}. every time.",
    "lean on {x} here",
    "just fire up {x}",
    "{x} did this for us in september",
    "didn't we solve this with {x} already?",
)

# Ways an owner asks that something stop being offered ({x}: its name).
MUTES: tuple[str, ...] = (
    "please don't mention {x} again",
    "I'm done with {x}, leave it out of your suggestions",
    "don't bring {x} up anymore",
    "{x} is retired, never offer it again",
    "quit pointing me at {x}",
    "enough about {x}, stop suggesting it",
    "forget {x} exists when you help me",
    "no more {x} please, I've moved on",
)

# How a request is put: {t} is the task.
FRAMES: tuple[str, ...] = (
    "{t}",
    "can you {t}?",
    "could you {t} for me",
    "{t}, please",
    "I need you to {t}",
    "quick one: {t}",
    "hey, {t}",
    "next up: {t}",
    "when you get a moment, {t}",
    "ok so {t}",
    "{t}. thanks",
    "we have to {t}",
    "alright, let's {t}",
    "one more thing: {t}",
    "{t}; tell me when done",
    "new thing: {t}",
    "help me {t}",
    "right, {t}",
    "first, {t}",
    "so, {t}",
)

# How a request names an asset ({x}) beside its task ({t}).
NAMED: tuple[str, ...] = (
    "use {x} to {t}",
    "{x}: {t}",
    "with {x}, {t}",
    "{t}, via {x}",
    "run {x} and {t}",
    "{t} using {x}",
    "have {x} {t}",
    "{t}. {x} should manage it",
    "get {x} going: {t}",
    "{t} (through {x})",
)

# What the agent says before the owner corrects it.
HESITATIONS: tuple[str, ...] = (
    "I can't reach that from here. Could you do it by hand and send me the result?",
    "I don't have access to that. Can you share it with me?",
    "Which tool would you like me to use for that?",
    "I'm not sure how to do that from this environment.",
    "I don't have the credentials for that, unfortunately.",
    "Which settings do you want me to use?",
    "I could write something from scratch for this. Shall I?",
)


def split(pool: tuple[str, ...], half: str) -> tuple[str, ...]:
    """One half of a phrasing pool by a fixed shuffle: `fit` (for tuning) or `report` (for the figures)."""
    order = list(pool)
    Random(0x5EED).shuffle(order)
    cut = len(order) // 2
    return tuple(order[:cut] if half == "fit" else order[cut:])


@dataclass(frozen=True)
class Superseded:
    """A decision taken twice (the later one current) or a document written three times (the last current)."""

    key: str
    kind: str  # decision | document
    versions: tuple[str, ...]  # oldest first; for a document, the file's successive contents
    stale: tuple[str, ...]  # words only the older versions hold
    path: str  # a document's path under the project; "" for a decision
    tasks: tuple[str, ...]


SUPERSEDED: tuple[Superseded, ...] = (
    Superseded(
        "rollout",
        "decision",
        (
            "Decided: staging deploys use blue-green with two colour pools.",
            "Decided: staging deploys switch to canary rollouts at five percent of traffic.",
        ),
        ("blue-green", "colour"),
        "",
        (
            "how do we put new builds live on staging?",
            "what's our way of shipping changes to the test servers",
            "plan the next staging release",
            "roll the new api out to pre-prod",
        ),
    ),
    Superseded(
        "queue",
        "decision",
        (
            "Decided: background jobs go through Celery with Redis.",
            "Decided: background jobs move to RQ; Celery is dropped.",
        ),
        ("celery",),
        "",
        (
            "where should the email sending happen asynchronously?",
            "add a nightly job for the export",
            "the thumbnails should be made off the request path",
            "offload the pdf rendering",
        ),
    ),
    Superseded(
        "runbook",
        "document",
        (
            "# On-call runbook (draft one)\nRestart the worker by hand.",
            "# On-call runbook (draft two)\nRestart the worker with supervisorctl.",
            "# On-call runbook\nRestart the worker with systemctl restart worker;"
            " page the lead after 15 minutes.",
        ),
        ("draft one", "draft two", "supervisorctl"),
        "docs/runbook.md",
        (
            "what do I do when the pager goes off at night?",
            "the worker died, what's the procedure",
            "walk me through handling an incident",
            "who do I escalate to if the jobs stall",
        ),
    ),
    Superseded(
        "pricing",
        "document",
        (
            "# Pricing (first pass)\nStarter 9 EUR, Team 29 EUR.",
            "# Pricing (second pass)\nStarter 12 EUR, Team 35 EUR.",
            "# Pricing\nStarter 15 EUR, Team 39 EUR, annual minus two months.",
        ),
        ("first pass", "second pass", "9 EUR", "12 EUR"),
        "docs/pricing.md",
        (
            "what do we charge for the small plan?",
            "a prospect asks how much a team costs",
            "quote the yearly price to the customer",
            "what are our tiers",
        ),
    ),
)
