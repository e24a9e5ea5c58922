"""A second catalogue for the ownership bench, written blind: by a helper session that read neither the
push nor the first catalogue. Used by `python bench/ownership.py --catalogue blind`."""

from __future__ import annotations

from ownership_catalog import Cap

BLIND_CAPS: tuple[Cap, ...] = (
    # ---- skill (7) ----
    Cap(
        key="receipts",
        kind="skill",
        names=("receipt-ledger", "the receipts thing", "the expense scanner"),
        description="Parses scanned receipt PDFs with OCR and appends vendor, date and total rows to a CSV "
        "ledger.",
        body="Runs tesseract on each page, pulls the amount with a regex, and skips files whose hash was "
        "already seen.",
        tasks=(
            "I've got a shoebox of crumpled slips from the hardware store, can you get them into my books?",
            "how much did i spend at costco over the last quarter",
            "tax season's coming and my accountant wants every business purchase from 2023 accounted for",
            "log the lumber yard stuff from tuesday pls",
            "Can you go through my photographed till stubs and tell me what I bought for the bakery in May?",
            "bookkeeping catch-up: everything in ~/Downloads/slips",
        ),
    ),
    Cap(
        key="chords",
        kind="skill",
        names=("chord-transposer", "the key changer", "transpose tool"),
        description="Transposes ChordPro chord sheets to a target key and rewrites the capo hint to match.",
        body="Shifts every chord root by a number of semitones, spelling sharps or flats from the "
        "destination key signature.",
        tasks=(
            "my singer wants Wonderwall a whole step lower, can you redo it for her?",
            "guitar night tomorrow and I need this hymn in G instead of Bb",
            "put these worship songs down a couple of frets so the choir can actually reach the high notes",
            "bring the lead chart for Autumn Leaves down a fourth for our alto player",
            "Is there a way to move the whole tune up so it suits a baritone?",
            "this song is way too high for me lol, lower it",
        ),
    ),
    Cap(
        key="birdcalls",
        kind="skill",
        names=("bird-call-id", "the birdsong identifier", "birdnet"),
        description="Identifies bird species in audio recordings with a BirdNET model and logs each "
        "detection with its confidence score.",
        body="Splits WAV files into three-second windows, runs the classifier on each, and keeps hits above "
        "0.7.",
        tasks=(
            "what's that thing singing in my garden at 5am? I've got the clip from my phone",
            "I left the recorder out in the marsh all weekend, which warblers did it pick up?",
            "is that a wren or a robin on this voice memo",
            "For my field survey I need a list of every feathered visitor heard on the dawn tapes from site "
            "B.",
            "anything rare on last night's mic?",
            "tell me what's chirping in these mp3s from the feeder",
        ),
    ),
    Cap(
        key="lessons",
        kind="skill",
        names=("lesson-plan-builder", "the lesson planner", "the teaching planner"),
        description="Generates a lesson plan from a curriculum standard with objectives, timed activities "
        "and an exit ticket.",
        body="Looks up the standard code in a bundled JSON of state standards and fills a Markdown template "
        "section by section.",
        tasks=(
            "I need something for year 8 fractions on Monday, 50 minutes, mixed ability",
            "help me prep tomorrow's class on photosynthesis for my fifth graders",
            "can you put together a period on the causes of WW1? the kids get restless after 20 mins",
            "sub is covering for me thursday — need a clear outline they can follow for persuasive essays",
            "What should I do with my Spanish 2 group for the first week back?",
            "quick 45 min intro to coordinate geometry pls",
        ),
    ),
    Cap(
        key="sourdough",
        kind="skill",
        names=("sourdough-scheduler", "the starter timer", "bread schedule"),
        description="Computes feeding and bake timelines for a sourdough starter from flour ratio, "
        "hydration and room temperature.",
        body="Uses a fermentation rate table keyed by degrees Celsius to place the levain, bulk, shaping "
        "and proof steps.",
        tasks=(
            "kitchen's about 18C this week, when should I mix the dough so loaves are ready for Sunday "
            "lunch?",
            "my culture's been sluggish, when do i refresh it if I want to make a boule saturday morning",
            "Planning a country loaf for friends on Friday evening — work backwards for me?",
            "what time do i need to get up to have a fresh batard out of the oven by 8",
            "its freezing in the flat, how long will my rise take",
            "I'm at work 9 to 5, can I fit a loaf in around that?",
        ),
    ),
    Cap(
        key="bibfix",
        kind="skill",
        names=("citation-fixer", "the bib cleaner", "bibtex fixer"),
        description="Normalises BibTeX entries, filling missing DOIs from Crossref and merging duplicate "
        "citation keys.",
        body="Queries the Crossref REST API by title and first author, then rewrites the .bib file in place "
        "sorted by key.",
        tasks=(
            "my references are a mess before the thesis deadline, half of them have no links",
            "LaTeX keeps warning about the same paper twice in my bibliography, can you deal with it?",
            "Journal submission needs identifiers on every reference — can you go through the refs for the "
            "chapter 3 manuscript",
            "clean up the zotero export for the lit review",
            "overleaf is complaining about my reference list again",
            "can u make the papers in my bibliography consistent? some have full journal names, some "
            "abbreviated",
        ),
    ),
    Cap(
        key="rightsize",
        kind="skill",
        names=("k8s-rightsizer", "the pod sizer", "resource tuner"),
        description="Reads Prometheus CPU and memory usage and proposes Kubernetes requests and limits for "
        "every deployment.",
        body="Takes the 95th percentile over fourteen days, adds 20% headroom, and emits a kustomize patch.",
        tasks=(
            "our cluster bill is insane, are we overprovisioning the api containers?",
            "the checkout service keeps getting OOMKilled, what should it be given?",
            "How much RAM and how many cores should the worker really have? It's been throttled all week.",
            "shrink what we reserve on the staging nodes, we're wasting money",
            "gke costs doubled, figure out where we're too generous",
            "set sensible quotas for the new search svc before launch",
        ),
    ),
    # ---- command (5) ----
    Cap(
        key="payroll",
        kind="command",
        names=("/payroll-run", "payroll-run", "the wages run"),
        description="Calculates hourly wages from timesheet exports, withholds income tax by bracket, and "
        "drafts a bank transfer file.",
        body="Reads the Deputy CSV export, applies overtime at 1.5x past 40 hours, and writes a BACS file "
        "for upload.",
        tasks=(
            "pay the staff for this fortnight",
            "Emma did extra Saturday shifts, make sure she gets it in her packet this time",
            "it's the 28th, can you sort the team's money so it lands friday?",
            "how much do I owe the baristas this month after deductions",
            "new hire started mid-month, get her first pay right please",
            "do the monthly staff pay thing",
        ),
    ),
    Cap(
        key="relnotes",
        kind="command",
        names=("/release-notes", "release-notes", "the changelog writer"),
        description="Collects merged pull request titles since the last git tag and groups them into a "
        "changelog by label.",
        body="Calls the GitHub API for PRs closed after the tag date and renders Keep a Changelog Markdown.",
        tasks=(
            "we're shipping v2.3 tomorrow, what's new in it for users?",
            "put together what changed this sprint for the announcement post",
            "Can you summarise everything that went into main over the past month so I can tell the "
            "customers?",
            "what's in 1.8 vs 1.7",
            "need the 'what's new' blurb for the app store listing",
            "list fixes and features going out in friday's version",
        ),
    ),
    Cap(
        key="inbox",
        kind="command",
        names=("/inbox-triage", "inbox-triage", "the email sorter"),
        description="Labels unread Gmail messages by sender rules and archives newsletters older than a "
        "week.",
        body="Uses the Gmail API with a YAML rule file and moves anything matching a promo pattern to a "
        "'Later' label.",
        tasks=(
            "my mail is a disaster, 4000 things I haven't opened",
            "get the marketing junk out of the way so i can see what my clients sent",
            "Before I go on holiday can you tidy up my mailbox so the important stuff stands out?",
            "too many substack digests clogging everything up",
            "clean up my mail pls",
            "is there something from the accountant buried in there?",
        ),
    ),
    Cap(
        key="flashcards",
        kind="command",
        names=("/flashcards", "flashcards", "the anki maker"),
        description="Converts highlighted Kindle passages into Anki cards with cloze deletions.",
        body="Parses My Clippings.txt, picks the key phrase in each highlight, and pushes notes through "
        "AnkiConnect.",
        tasks=(
            "I want to actually remember what I read in Thinking Fast and Slow",
            "turn the bits I marked in my e-reader into something I can study",
            "med school exam in 3 weeks — can you quiz me on the pharmacology book I've been reading?",
            "help me memorise the stuff i underlined in sapiens",
            "Can you make spaced repetition decks out of my book markings?",
            "revision stuff from my reading pls",
        ),
    ),
    Cap(
        key="rent",
        kind="command",
        names=("/rent-reminders", "rent-reminders", "the tenant nudger"),
        description="Emails tenants whose rent is unpaid after the fifth with a templated notice and the "
        "late fee.",
        body="Checks the Stripe balance per unit against the lease amount and sends via Postmark.",
        tasks=(
            "who still owes me for the flat on Elm street this month? chase them",
            "It's the 7th and two of my renters haven't come through — can you ping them politely but "
            "firmly?",
            "chase the people in 3B, they're behind again",
            "landlord admin time: make sure everyone who's overdue hears from me",
            "has the couple at the cottage settled up yet?",
            "fire off the monthly 'where's my money' messages",
        ),
    ),
    # ---- script (4) ----
    Cap(
        key="logrotate",
        kind="script",
        names=("rotate_logs.sh", "the log rotator"),
        description="# gzip nginx access logs older than seven days and delete archives past ninety days",
        body='find /var/log/nginx -name "*.log" -mtime +7 -exec gzip {} \\;\n'
        'find /var/log/nginx -name "*.gz" -mtime +90 -delete',
        tasks=(
            "disk on the web box is 98% full again",
            "the server keeps running out of space because of the webserver history files",
            "Can you stop the root partition from filling up every few weeks?",
            "clear out old request records on the proxy, we only need about three months",
            "why is df showing no room left on prod",
            "free up space on the vps pls",
        ),
    ),
    Cap(
        key="prices",
        kind="script",
        names=("scrape_prices.py", "the price scraper"),
        description="# fetch competitor product pages and record the listed price into sqlite",
        body="for url in COMPETITOR_URLS:\n"
        "    html = requests.get(url, timeout=10).text\n"
        '    db.execute("INSERT INTO prices VALUES (?, ?)", (url, parse_price(html)))',
        tasks=(
            "what are the other candle shops charging for a 200g jar right now?",
            "am I undercutting anyone on the blue ceramic mugs?",
            "Is the rival bike shop cheaper than us on Shimano chains this week?",
            "check what rivals charge for the same teapot",
            "has anyone dropped what they're asking for standing desks since monday",
            "compare our rates with the big online shops",
        ),
    ),
    Cap(
        key="strava",
        kind="script",
        names=("strava_export.py", "the ride downloader"),
        description="# download activities from the Strava API as GPX files into ~/rides",
        body="for act in client.get_activities(after=since):\n"
        "    gpx = client.get_activity_streams(act.id)\n"
        '    write_gpx(Path.home() / "rides" / f"{act.id}.gpx", gpx)',
        tasks=(
            "pull all my cycling from this year onto my laptop so I can map them",
            "I want every run I've logged from January on as tracks I can open in QGIS",
            "back up my workouts before I cancel my subscription",
            "Can you grab the route from Saturday's century so I can share it with the club?",
            "my bike commutes — need them locally for a heatmap",
            "fetch my jogs off the app",
        ),
    ),
    Cap(
        key="subs",
        kind="script",
        names=("fix_subtitles.py", "the subtitle shifter"),
        description="# shift SRT subtitle timestamps by a fixed offset in milliseconds",
        body="for cue in srt.parse(open(path).read()):\n"
        "    cue.start += timedelta(milliseconds=offset_ms)\n"
        "    cue.end += timedelta(milliseconds=offset_ms)",
        tasks=(
            "the captions on this movie are like two seconds behind the voices",
            "words on screen appear before people talk in episode 4, super annoying",
            "Can you line up the closed captions with the dialogue? They drift by about 1.5s.",
            "caps are out of sync with the audio on my lecture recording",
            "the danish film's english text lags",
            "my kids' cartoon has dialogue showing up way too late",
        ),
    ),
    # ---- machine (4) ----
    Cap(
        key="barncam",
        kind="machine",
        names=("barn-cam", "the coop camera", "the chicken pi"),
        description="Raspberry Pi 4 running motion detection on the chicken coop camera in the barn; ssh "
        "pi@192.168.1.40; the login is in Bitwarden under Barn Pi.",
        body="",
        tasks=(
            "did a fox get at the hens last night? check the footage",
            "the feed from out back stopped around midnight, can you get it going again?",
            "how much storage is left on the little board watching the birds",
            "Reboot the thing in the outbuilding that films the henhouse, it's frozen.",
            "anything moving near the nesting boxes this morning?",
            "update the os on the poultry monitor",
        ),
    ),
    Cap(
        key="labgpu",
        kind="machine",
        names=("lab-gpu", "the lab box", "the 4090 machine"),
        description="Workstation with two RTX 4090s in the university lab, room 3.12; ssh "
        "mkhan@lab-gpu.cs.example.edu; the login is in ~/.ssh/id_lab.",
        body="",
        tasks=(
            "is anyone hogging the cards at the department right now? I need to start my experiment",
            "kick off the fine-tune on the big rig at uni overnight",
            "check nvidia-smi on the department compute, my job seems stuck",
            "How much scratch space is left on our group's beefy desktop at school?",
            "install the latest cuda toolkit on the research rig",
            "my jupyter kernel on the shared number-cruncher died, can you restart it",
        ),
    ),
    Cap(
        key="till",
        kind="machine",
        names=("shop-pos", "the till", "the cafe till pc"),
        description="Windows till PC behind the counter at the cafe; ssh admin@10.0.0.15; the login is in "
        "the 1Password vault under Cafe Till.",
        body="",
        tasks=(
            "the card reader at the register won't connect again, can you look?",
            "why is the checkout computer so slow this morning, queue out the door",
            "Can you pull yesterday's sales from the register so I can do the banking?",
            "printer for customer slips stopped working at the front",
            "update the coffee menu prices on the point of sale",
            "has the register backed up overnight?",
        ),
    ),
    Cap(
        key="mediabox",
        kind="machine",
        names=("media-box", "the nuc", "the jellyfin box"),
        description="Intel NUC under the TV running Jellyfin and Sonarr; ssh media@nuc.local; the login is "
        "in ~/.ssh/id_media.",
        body="",
        tasks=(
            "movie night and nothing will stream, the films won't load on the telly",
            "is the new season of Severance downloaded yet?",
            "add The Bear to the auto-grab list",
            "kids say cartoons keep buffering in the lounge, can you check the thing",
            "How full is the drive with all our shows on it?",
            "restart the streaming server pls it's being weird",
        ),
    ),
    # ---- agent (3) ----
    Cap(
        key="migrev",
        kind="agent",
        names=("migration-reviewer", "the migration checker"),
        description="Reviews Alembic database migrations for table-locking operations, missing downgrades "
        "and possible data loss.",
        body="Parses each revision's upgrade ops and flags ALTERs that rewrite large tables or drop columns "
        "without a backfill.",
        tasks=(
            "is this schema change safe to ship during business hours?",
            "look over my PR that renames the email field on users before it hits prod",
            "Will adding a NOT NULL constraint to orders take the site down?",
            "sanity check the new postgres script in versions/ before i merge",
            "could this wipe anyone's stuff if we roll back",
            "second pair of eyes on the index I'm adding to the 80M-row events thing pls",
        ),
    ),
    Cap(
        key="a11y",
        kind="agent",
        names=("a11y-auditor", "the accessibility checker"),
        description="Audits React components for accessibility problems such as missing alt text, low "
        "colour contrast and unlabeled form inputs.",
        body="Renders each component with axe-core in jsdom and reports violations with the offending JSX "
        "line.",
        tasks=(
            "can a blind person actually use our signup page with a screen reader?",
            "we got a complaint that the checkout is unusable for visually impaired shoppers",
            "is the new navbar ok for keyboard-only users",
            "Client's legal team wants WCAG AA compliance before launch — what's wrong with the dashboard?",
            "make sure the pricing page works for people who can't tell red from green",
            "ada lawsuit risk on our site?",
        ),
    ),
    Cap(
        key="grantcrit",
        kind="agent",
        names=("grant-critic", "the proposal reviewer"),
        description="Reads a grant proposal draft against the funder's rubric and flags weak aims, vague "
        "budgets and missing milestones.",
        body="Scores each section against the call's criteria and suggests concrete rewrites for the "
        "lowest-scoring parts.",
        tasks=(
            "submitting to the NSF on friday, be brutal about my application",
            "Will the panel buy my research plan? I'm worried it's fluffy.",
            "tear apart my ERC bid before my PI sees it",
            "is my wellcome application competitive or am i kidding myself",
            "the foundation wants a 5 page pitch for our community garden, tell me what the judges will hate",
            "what would the NIH panel dislike about this R01?",
        ),
    ),
    # ---- mcp_server (3) ----
    Cap(
        key="pg",
        kind="mcp_server",
        names=("postgres", "the shop db", "the orders database"),
        description="npx -y @modelcontextprotocol/server-postgres postgresql://readonly@localhost:5432/shop",
        body="",
        tasks=(
            "how many people bought something yesterday?",
            "which customers have purchased more than three times since March",
            "What's our best-selling SKU this quarter by revenue?",
            "find the refund on purchase #4471",
            "avg basket size in december vs november",
            "who signed up but never checked out",
        ),
    ),
    Cap(
        key="notion",
        kind="mcp_server",
        names=("notion", "the wiki", "the team workspace"),
        description="npx -y @notionhq/notion-mcp-server",
        body="",
        tasks=(
            "what did we document about onboarding new hires?",
            "add these meeting notes to the product space",
            "Where did Priya put the Q3 roadmap doc? I can't find it anywhere.",
            "update the on-call page with the new pager number",
            "is there a runbook for rotating the stripe keys in our docs",
            "make a page for the offsite agenda",
        ),
    ),
    Cap(
        key="hass",
        kind="mcp_server",
        names=("hass", "home assistant", "the house controls"),
        description="uvx hass-mcp --url http://homeassistant.local:8123",
        body="",
        tasks=(
            "turn off the living room lights",
            "is the front door locked?",
            "set the heating to 19 in the bedroom",
            "Did the washing machine finish? I'm on the train.",
            "close the blinds in the study pls",
            "whats the humidity in the basement rn",
        ),
    ),
    # ---- approach (3) ----
    Cap(
        key="imagenet",
        kind="approach",
        names=("the long imagenet run", "the 94% run"),
        description="python train.py --model resnet50 --lr 3e-4 --batch-size 128 --epochs 90 "
        "--mixed-precision --seed 7",
        body="",
        tasks=(
            "redo the classifier from the paper the way we did it when it hit the good accuracy",
            "I need to reproduce the baseline for the reviewers, same settings as before",
            "kick off that fit again — the one that ended up best in table 2",
            "what flags did i use for the vision baseline? do it again",
            "Can you relaunch the image classification job exactly as last summer?",
            "same recipe as the good one pls",
        ),
    ),
    Cap(
        key="rsync",
        kind="approach",
        names=("the slow rsync", "the offsite copy"),
        description="rsync -avz --bwlimit=2000 --partial --delete-after /srv/photos/ "
        "backup@offsite:/vol/photos/",
        body="",
        tasks=(
            "send the pictures to the other site again but don't hog the internet like last time",
            "mirror the picture archive to my brother's place overnight, throttled",
            "Can you redo that gentle sync of the family snaps that didn't kill Netflix for everyone?",
            "push the image folder to the remote box the way we did in march",
            "replicate the camera roll stash off-premises, same as before",
            "do the nightly picture thing again, bandwidth-friendly",
        ),
    ),
    Cap(
        key="ffmpeg",
        kind="approach",
        names=("the good ffmpeg encode", "the wedding encode"),
        description="ffmpeg -i input.mov -c:v libx265 -crf 22 -preset slow -c:a aac -b:a 160k output.mp4",
        body="",
        tasks=(
            "shrink the graduation video the same way as before, quality was perfect",
            "make this 8GB clip small enough to email without it looking awful",
            "Can you compress the drone footage using the settings we used for Sara's big day?",
            "squash the iphone videos from the trip, like last time",
            "need the family reunion film at a sane size for youtube",
            "hevc this please, same as the one i liked",
        ),
    ),
    # ---- decision (3) ----
    Cap(
        key="authpick",
        kind="decision",
        names=("auth pick", "sign-in choice"),
        description="Decided: use Clerk for sign-in instead of rolling our own JWT sessions or paying for "
        "Auth0.",
        body="",
        tasks=(
            "how should people log into the new app?",
            "add a login page to the dashboard",
            "Which provider are we going with for user accounts? I forgot what we agreed.",
            "set up password reset for customers",
            "should i build token handling myself for the mobile client",
            "wire up google login on the marketing site",
        ),
    ),
    Cap(
        key="jobqueue",
        kind="decision",
        names=("queue choice", "the jobs decision"),
        description="Decided: background jobs go through Redis with RQ; Celery and RabbitMQ were rejected "
        "as too heavy for one VPS.",
        body="",
        tasks=(
            "the thumbnail generation needs to happen async, how should I set that up?",
            "send welcome emails without blocking the signup request",
            "What should run our nightly report tasks outside the web process?",
            "kafka for the worker stuff?",
            "offload the pdf rendering so the page doesn't time out",
            "retry failed webhook deliveries a few times later on",
        ),
    ),
    Cap(
        key="sensors",
        kind="decision",
        names=("sensor storage", "the parquet decision"),
        description="Decided: store sensor readings as Parquet files partitioned by day; InfluxDB was "
        "rejected as one more service to run.",
        body="",
        tasks=(
            "where should the weather station data live long term?",
            "we're logging soil moisture every minute from 40 probes, how do I keep it",
            "Should I spin up Timescale for the greenhouse telemetry?",
            "set up somewhere to put the thermometer measurements from the cold room",
            "what format do we save the buoy data in again",
            "dumping air quality numbers to sqlite is getting slow, better idea?",
        ),
    ),
)

BLIND_UNSERVED: tuple[str, ...] = (
    "why does my list comprehension return None in python",
    "write a haiku about autumn for the shop newsletter",
    "explain the difference between TCP and UDP like I'm five",
    "rename this variable everywhere in the file",
    "what's the capital of Mongolia?",
    "help me word a polite email declining a meeting",
    "recommend a good stand mixer for bread",
    "write lyrics for a song about my dog",
    "draw a cartoon owl for my kid's birthday card",
    "recommend a good sci-fi film for tonight",
    "add a title card and some music to my wedding video",
    "explain what a database index is in simple terms",
    "which smart bulbs are best to buy?",
    "what's a fair hourly rate to offer a barista in Leeds?",
    "draft a lease agreement for a new tenant",
    "make me a 10k training plan for the spring",
    "find grants I could apply to for marine biology",
    "pick a colour palette for my portfolio site",
    "translate this paragraph into Spanish",
    "fix the off-by-one error in this loop",
    "how do I center a div vertically",
    "summarise this article for me",
    "regex to match UK postcodes",
    "convert this JS function to TypeScript",
)
