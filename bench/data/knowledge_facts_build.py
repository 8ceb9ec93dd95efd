"""Build bench/data/knowledge_facts.jsonl, a labelled evaluation set for the fact extractor.

This set was written and labelled WITHOUT seeing the extractor: neither
memory/extraction/ nor any extractor code was read. Labels follow the written
specification only (subject / slot / object / ends rules: first person = the
speaker, or "user" when speaker is null; slot families name, role, works_at,
lives_in, from, owns, count, uses, allergic_to, likes, prefers, is, plans,
deadline, decided, or a plain lower-case attribute from "my X is Y").

Standard library only and deterministic: running it twice writes the same file.

    python3 bench/data/knowledge_facts_build.py
"""

import json
import os
import random
from collections import Counter
from datetime import UTC, datetime, timedelta

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "knowledge_facts.jsonl")
BASE = datetime(2023, 5, 20, 10, 0, 0, tzinfo=UTC)


def F(subject, slot, obj, ends=False):
    return {"subject": subject, "slot": slot, "object": obj, "ends": ends}


# (text, speaker, [facts])
WITH_FACTS = [
    # --- name -------------------------------------------------------------
    ("My name is Sam Okafor.", "Sam", [F("Sam", "name", "Sam Okafor")]),
    ("Hi, my name is Priya.", None, [F("user", "name", "Priya")]),
    ("hey, my name's Daniel btw", None, [F("user", "name", "Daniel")]),
    # --- role / works_at ----------------------------------------------------
    (
        "I work at Stripe as a senior backend developer.",
        "Sam",
        [F("Sam", "works_at", "Stripe"), F("Sam", "role", "senior backend developer")],
    ),
    (
        "I'm a product designer at Figma.",
        "Maya",
        [F("Maya", "role", "product designer"), F("Maya", "works_at", "Figma")],
    ),
    ("I'm a nurse.", None, [F("user", "role", "nurse")]),
    ("I work as a freelance translator.", "Jonas", [F("Jonas", "role", "freelance translator")]),
    (
        "Currently I'm a PhD student at ETH Zurich.",
        None,
        [F("user", "role", "PhD student"), F("user", "works_at", "ETH Zurich")],
    ),
    (
        "I'm the CTO of a small startup called Brightwave.",
        "Leo",
        [F("Leo", "role", "CTO"), F("Leo", "works_at", "Brightwave")],
    ),
    (
        "I joined Atlassian last month as a staff engineer.",
        "Priya",
        [F("Priya", "works_at", "Atlassian"), F("Priya", "role", "staff engineer")],
    ),
    ("I got promoted to engineering manager!", "Sam", [F("Sam", "role", "engineering manager")]),
    (
        "I work remotely for a company called Nimbus Labs.",
        None,
        [F("user", "works_at", "Nimbus Labs")],
    ),
    (
        "Quick context before my question: I work at Shopify, mostly on the checkout team, "
        "and I'd like help debugging a Kafka consumer that keeps rebalancing.",
        None,
        [F("user", "works_at", "Shopify")],
    ),
    ("Jonas works at Spotify.", "Maya", [F("Jonas", "works_at", "Spotify")]),
    ("Leo is a data scientist.", "Priya", [F("Leo", "role", "data scientist")]),
    ("Sam just started at Notion.", "Maya", [F("Sam", "works_at", "Notion")]),
    (
        "Priya is a senior data engineer at Monzo.",
        "Jonas",
        [F("Priya", "role", "senior data engineer"), F("Priya", "works_at", "Monzo")],
    ),
    (
        "Dana is the head of design at Figma.",
        "Maya",
        [F("Dana", "role", "head of design"), F("Dana", "works_at", "Figma")],
    ),
    # --- ending employment --------------------------------------------------
    ("I left Acme in March.", "Sam", [F("Sam", "works_at", "Acme", True)]),
    ("I quit my job at Deloitte.", None, [F("user", "works_at", "Deloitte", True)]),
    ("I no longer work at Google.", "Leo", [F("Leo", "works_at", "Google", True)]),
    ("Priya left Microsoft in June.", "Sam", [F("Priya", "works_at", "Microsoft", True)]),
    ("Leo quit Uber last year.", "Maya", [F("Leo", "works_at", "Uber", True)]),
    # --- lives_in / from ----------------------------------------------------
    ("I live in Berlin.", None, [F("user", "lives_in", "Berlin")]),
    ("We moved to Lisbon last spring.", "Jonas", [F("Jonas", "lives_in", "Lisbon")]),
    ("I moved to Denver in January.", "Priya", [F("Priya", "lives_in", "Denver")]),
    (
        "fwiw I'm based in Singapore, so mornings there are evenings for you",
        None,
        [F("user", "lives_in", "Singapore")],
    ),
    ("I no longer live in Paris.", "Maya", [F("Maya", "lives_in", "Paris", True)]),
    ("I'm originally from Lagos.", "Sam", [F("Sam", "from", "Lagos")]),
    ("I grew up in Kerala.", None, [F("user", "from", "Kerala")]),
    (
        "I was born in Dublin but I live in London now.",
        "Leo",
        [F("Leo", "from", "Dublin"), F("Leo", "lives_in", "London")],
    ),
    (
        "Maya is from Toronto but lives in Montreal now.",
        "Sam",
        [F("Maya", "from", "Toronto"), F("Maya", "lives_in", "Montreal")],
    ),
    ("Maya lives in Austin.", "Jonas", [F("Maya", "lives_in", "Austin")]),
    ("Jonas moved to Oslo.", "Leo", [F("Jonas", "lives_in", "Oslo")]),
    ("Leo is originally from Seoul.", "Priya", [F("Leo", "from", "Seoul")]),
    (
        "Jonas works at Klarna and lives in Stockholm.",
        "Maya",
        [F("Jonas", "works_at", "Klarna"), F("Jonas", "lives_in", "Stockholm")],
    ),
    (
        "Marcus lives in Nairobi and works at Safaricom.",
        "Sam",
        [F("Marcus", "lives_in", "Nairobi"), F("Marcus", "works_at", "Safaricom")],
    ),
    (
        "So yesterday was chaotic: we had the offsite, the projector died, and in the middle of all "
        "that my flight got moved, but anyway I live in Rotterdam so getting home wasn't a huge deal, "
        "and today I just want to relax.",
        None,
        [F("user", "lives_in", "Rotterdam")],
    ),
    (
        "Can you help me draft an email to my landlord? For context, I moved to Manchester in February "
        "and the heating in the flat has been broken ever since.",
        None,
        [F("user", "lives_in", "Manchester")],
    ),
    # --- owns / count -------------------------------------------------------
    ("I have two cats.", None, [F("user", "count:cats", "two")]),
    ("I've got a dog named Rex.", "Sam", [F("Sam", "owns:dog:rex", "Rex")]),
    (
        "We have 2 dogs and a cat named Miso.",
        "Maya",
        [F("Maya", "count:dogs", "2"), F("Maya", "owns:cat:miso", "Miso")],
    ),
    ("We adopted a cat, Pixel, last weekend.", "Jonas", [F("Jonas", "owns:cat:pixel", "Pixel")]),
    ("I have a horse called Juniper.", None, [F("user", "owns:horse:juniper", "Juniper")]),
    ("I just bought an electric bike.", "Leo", [F("Leo", "owns:electric bike", "electric bike")]),
    ("I finally bought a house!", "Priya", [F("Priya", "owns:house", "house")]),
    ("I have a 3D printer at home.", None, [F("user", "owns:3d printer", "3D printer")]),
    (
        "I have four monitors on my desk, which is probably too many.",
        "Sam",
        [F("Sam", "count:monitors", "four")],
    ),
    ("I have three kids.", None, [F("user", "count:kids", "three")]),
    ("Maya has three kids.", "Priya", [F("Maya", "count:kids", "three")]),
    ("Tom has two kids.", "Leo", [F("Tom", "count:kids", "two")]),
    ("Maya has a dog called Biscuit.", "Sam", [F("Maya", "owns:dog:biscuit", "Biscuit")]),
    ("Priya owns a motorbike.", "Jonas", [F("Priya", "owns:motorbike", "motorbike")]),
    (
        "Sorry for the late reply, I was at the vet with my dog Rex, he's fine now, "
        "he just ate something weird in the park.",
        None,
        [F("user", "owns:dog:rex", "Rex")],
    ),
    # --- uses ---------------------------------------------------------------
    ("I use Obsidian for all my notes.", None, [F("user", "uses:obsidian", "Obsidian")]),
    ("I've been using Neovim for years.", "Leo", [F("Leo", "uses:neovim", "Neovim")]),
    ("We use Postgres for everything at work.", "Leo", [F("Leo", "uses:postgres", "Postgres")]),
    ("We use Datadog for monitoring.", "Jonas", [F("Jonas", "uses:datadog", "Datadog")]),
    (
        "I use Todoist for tasks and Google Calendar for scheduling.",
        None,
        [
            F("user", "uses:todoist", "Todoist"),
            F("user", "uses:google calendar", "Google Calendar"),
        ],
    ),
    (
        "I use iTerm2 with zsh.",
        "Sam",
        [F("Sam", "uses:iterm2", "iTerm2"), F("Sam", "uses:zsh", "zsh")],
    ),
    ("Maya uses Linear for project tracking.", "Jonas", [F("Maya", "uses:linear", "Linear")]),
    (
        "Random thought while I wait for the build: I've been using Bazel at work for about two years "
        "now and I still don't fully get remote caching, can you explain it like I'm five?",
        "Priya",
        [F("Priya", "uses:bazel", "Bazel")],
    ),
    ("I stopped using Evernote.", None, [F("user", "uses:evernote", "Evernote", True)]),
    ("Elena stopped using Twitter.", "Sam", [F("Elena", "uses:twitter", "Twitter", True)]),
    (
        "We switched from Jenkins to GitHub Actions.",
        "Leo",
        [
            F("Leo", "uses:jenkins", "Jenkins", True),
            F("Leo", "uses:github actions", "GitHub Actions"),
        ],
    ),
    (
        "I switched from VS Code to Zed last week.",
        None,
        [F("user", "uses:vs code", "VS Code", True), F("user", "uses:zed", "Zed")],
    ),
    (
        "We migrated from MySQL to Postgres last quarter.",
        "Jonas",
        [F("Jonas", "uses:mysql", "MySQL", True), F("Jonas", "uses:postgres", "Postgres")],
    ),
    (
        "btw we switched from Trello to Linear a couple months ago, way better",
        "Maya",
        [F("Maya", "uses:trello", "Trello", True), F("Maya", "uses:linear", "Linear")],
    ),
    (
        "Grace switched from Android to iPhone.",
        "Priya",
        [F("Grace", "uses:android", "Android", True), F("Grace", "uses:iphone", "iPhone")],
    ),
    ("I don't use Slack anymore.", "Sam", [F("Sam", "uses:slack", "Slack", True)]),
    ("we dropped CircleCI, nobody misses it", "Leo", [F("Leo", "uses:circleci", "CircleCI", True)]),
    # --- allergic_to ----------------------------------------------------------
    ("I'm allergic to peanuts.", None, [F("user", "allergic_to:peanuts", "peanuts")]),
    (
        "I'm allergic to cats and dust.",
        "Maya",
        [F("Maya", "allergic_to:cats", "cats"), F("Maya", "allergic_to:dust", "dust")],
    ),
    (
        "I'm allergic to penicillin, please put that on the form.",
        "Jonas",
        [F("Jonas", "allergic_to:penicillin", "penicillin")],
    ),
    ("Sam is allergic to shellfish.", "Maya", [F("Sam", "allergic_to:shellfish", "shellfish")]),
    ("Ingrid is allergic to bees.", "Leo", [F("Ingrid", "allergic_to:bees", "bees")]),
    (
        "Context for the recipe request: I'm allergic to tree nuts and we're cooking for six people "
        "on Saturday, so something that scales would be great.",
        None,
        [F("user", "allergic_to:tree nuts", "tree nuts")],
    ),
    # --- likes / dislikes -----------------------------------------------------
    ("I love hiking.", None, [F("user", "likes:hiking", "hiking")]),
    ("I hate running.", "Sam", [F("Sam", "likes:running", "running", True)]),
    (
        "tbh I really enjoy cooking Thai food",
        "Priya",
        [F("Priya", "likes:cooking thai food", "cooking Thai food")],
    ),
    ("I really enjoy long walks.", None, [F("user", "likes:long walks", "long walks")]),
    (
        "Honestly I love Rust, the compiler errors are so good.",
        "Leo",
        [F("Leo", "likes:rust", "Rust")],
    ),
    ("I can't stand cilantro.", "Maya", [F("Maya", "likes:cilantro", "cilantro", True)]),
    (
        "I dislike long meetings.",
        "Jonas",
        [F("Jonas", "likes:long meetings", "long meetings", True)],
    ),
    (
        "I don't like horror movies.",
        None,
        [F("user", "likes:horror movies", "horror movies", True)],
    ),
    ("honestly I hate olives", "Sam", [F("Sam", "likes:olives", "olives", True)]),
    ("Priya loves rock climbing.", "Maya", [F("Priya", "likes:rock climbing", "rock climbing")]),
    ("Raj loves board games.", "Jonas", [F("Raj", "likes:board games", "board games")]),
    ("Jonas hates cilantro.", "Priya", [F("Jonas", "likes:cilantro", "cilantro", True)]),
    (
        "Maya can't stand open-plan offices.",
        "Leo",
        [F("Maya", "likes:open-plan offices", "open-plan offices", True)],
    ),
    # --- prefers ----------------------------------------------------------------
    ("I prefer tea over coffee.", None, [F("user", "prefers:coffee|tea", "tea")]),
    ("I prefer Python to JavaScript.", "Sam", [F("Sam", "prefers:javascript|python", "Python")]),
    ("I prefer Vim over Emacs.", "Leo", [F("Leo", "prefers:emacs|vim", "Vim")]),
    (
        "I prefer email to Slack for anything important.",
        "Jonas",
        [F("Jonas", "prefers:email|slack", "email")],
    ),
    (
        "tbh I prefer working from home over going to the office",
        None,
        [F("user", "prefers:going to the office|working from home", "working from home")],
    ),
    ("I prefer dark mode.", "Maya", [F("Maya", "prefers:dark mode", "dark mode")]),
    ("I prefer async standups.", "Priya", [F("Priya", "prefers:async standups", "async standups")]),
    (
        "I prefer morning workouts.",
        None,
        [F("user", "prefers:morning workouts", "morning workouts")],
    ),
    ("Priya prefers Figma over Sketch.", "Sam", [F("Priya", "prefers:figma|sketch", "Figma")]),
    # --- is -----------------------------------------------------------------------
    ("I'm vegetarian.", None, [F("user", "is:vegetarian", "vegetarian")]),
    ("I'm vegan these days.", "Priya", [F("Priya", "is:vegan", "vegan")]),
    (
        "btw I'm a night owl, so my replies might come late",
        "Jonas",
        [F("Jonas", "is:night owl", "night owl")],
    ),
    ("I'm a morning person.", "Sam", [F("Sam", "is:morning person", "morning person")]),
    ("I'm left-handed.", None, [F("user", "is:left-handed", "left-handed")]),
    ("Maya is vegetarian.", "Leo", [F("Maya", "is:vegetarian", "vegetarian")]),
    ("Ana is a night owl.", "Maya", [F("Ana", "is:night owl", "night owl")]),
    ("I'm not vegan anymore.", "Leo", [F("Leo", "is:vegan", "vegan", True)]),
    (
        "Some background: I'm a vegetarian, I'm allergic to shellfish, and I love cycling.",
        None,
        [
            F("user", "is:vegetarian", "vegetarian"),
            F("user", "allergic_to:shellfish", "shellfish"),
            F("user", "likes:cycling", "cycling"),
        ],
    ),
    # --- plans --------------------------------------------------------------------
    (
        "I'm planning to visit Tokyo next month.",
        None,
        [F("user", "plans:visit tokyo", "visit Tokyo")],
    ),
    (
        "I'm planning to learn Rust this summer.",
        "Sam",
        [F("Sam", "plans:learn rust", "learn Rust")],
    ),
    (
        "We're planning to migrate the billing service to Go.",
        "Leo",
        [F("Leo", "plans:migrate the billing service to go", "migrate the billing service to Go")],
    ),
    (
        "I plan to run a marathon in October.",
        "Priya",
        [F("Priya", "plans:run a marathon", "run a marathon")],
    ),
    (
        "I'm planning to move to Amsterdam next year.",
        "Maya",
        [F("Maya", "plans:move to amsterdam", "move to Amsterdam")],
    ),
    (
        "We plan to hire two more designers.",
        "Jonas",
        [F("Jonas", "plans:hire two more designers", "hire two more designers")],
    ),
    (
        "We're planning to sunset the v1 API.",
        "Leo",
        [F("Leo", "plans:sunset the v1 api", "sunset the v1 API")],
    ),
    (
        "Jonas is planning to visit Kyoto in April.",
        "Sam",
        [F("Jonas", "plans:visit kyoto", "visit Kyoto")],
    ),
    (
        "Omar is planning to open a bakery.",
        "Priya",
        [F("Omar", "plans:open a bakery", "open a bakery")],
    ),
    # --- deadline -----------------------------------------------------------------
    (
        "The deadline for the Falcon launch is June 30.",
        "Sam",
        [F("Sam", "deadline:falcon launch", "June 30")],
    ),
    (
        "The deadline for the Q3 report is September 15.",
        None,
        [F("user", "deadline:q3 report", "September 15")],
    ),
    (
        "Deadline for the grant application is Nov 1st.",
        "Priya",
        [F("Priya", "deadline:grant application", "Nov 1st")],
    ),
    (
        "Just FYI, the deadline for the tax filing is April 15.",
        None,
        [F("user", "deadline:tax filing", "April 15")],
    ),
    (
        "fyi the deadline for the SOC 2 evidence is May 31",
        "Jonas",
        [F("Jonas", "deadline:soc 2 evidence", "May 31")],
    ),
    (
        "Ok so long story, but the short version is the client moved the meeting again, the deadline "
        "for the Kestrel audit is October 3, and nobody has told finance yet, so I'll write it up tonight.",
        "Maya",
        [F("Maya", "deadline:kestrel audit", "October 3")],
    ),
    # --- decided ------------------------------------------------------------------
    (
        "We decided to ship the beta on Friday.",
        "Leo",
        [F("Leo", "decided:ship the beta", "ship the beta")],
    ),
    (
        "We decided to drop support for IE11.",
        "Sam",
        [F("Sam", "decided:drop support for ie11", "drop support for IE11")],
    ),
    (
        "I decided to take the offer from Datadog.",
        None,
        [F("user", "decided:take the offer from datadog", "take the offer from Datadog")],
    ),
    (
        "We've decided to postpone the launch.",
        "Maya",
        [F("Maya", "decided:postpone the launch", "postpone the launch")],
    ),
    ("I've decided to quit sugar.", "Priya", [F("Priya", "decided:quit sugar", "quit sugar")]),
    (
        "heads up: we decided to freeze merges to main",
        "Leo",
        [F("Leo", "decided:freeze merges to main", "freeze merges to main")],
    ),
    (
        "We had the retro this morning and after a pretty long discussion about flaky tests we decided "
        "to quarantine the integration suite, which should unblock the release train.",
        "Jonas",
        [
            F(
                "Jonas",
                "decided:quarantine the integration suite",
                "quarantine the integration suite",
            )
        ],
    ),
    # --- plain attributes -----------------------------------------------------------
    ("My personal best 5K time is 25:50.", None, [F("user", "personal best 5k time", "25:50")]),
    ("Maya's manager is Dana Whitfield.", "Sam", [F("Maya", "manager", "Dana Whitfield")]),
    ("Priya's team lead is Marcus.", "Leo", [F("Priya", "team lead", "Marcus")]),
    ("The mentor of Jonas is Ingrid Larsen.", "Maya", [F("Jonas", "mentor", "Ingrid Larsen")]),
    ("The budget of Project Atlas is $40k.", "Sam", [F("Project Atlas", "budget", "$40k")]),
    ("My wife is Elena.", "Jonas", [F("Jonas", "wife", "Elena")]),
    ("My favorite color is green.", None, [F("user", "favorite color", "green")]),
    ("My birthday is March 3rd.", "Priya", [F("Priya", "birthday", "March 3rd")]),
    ("My dentist is Dr. Kaur.", None, [F("user", "dentist", "Dr. Kaur")]),
    ("My favourite band is Radiohead.", "Leo", [F("Leo", "favourite band", "Radiohead")]),
    ("My GitHub handle is @mayacodes.", "Maya", [F("Maya", "github handle", "@mayacodes")]),
    ("My timezone is CET.", "Jonas", [F("Jonas", "timezone", "CET")]),
    ("btw my manager is Arjun, in case he emails you", None, [F("user", "manager", "Arjun")]),
    (
        "My manager is Tom and my skip-level is Rachel.",
        "Sam",
        [F("Sam", "manager", "Tom"), F("Sam", "skip-level", "Rachel")],
    ),
    (
        "My current weight is 82 kg and my goal weight is 75 kg.",
        None,
        [F("user", "current weight", "82 kg"), F("user", "goal weight", "75 kg")],
    ),
    (
        "My favourite programming language is Elixir.",
        "Priya",
        [F("Priya", "favourite programming language", "Elixir")],
    ),
    ("My best friend is Jamal.", None, [F("user", "best friend", "Jamal")]),
    ("My Discord username is nightcoder42.", "Leo", [F("Leo", "discord username", "nightcoder42")]),
    (
        "My favourite coffee shop is Blue Bottle.",
        "Maya",
        [F("Maya", "favourite coffee shop", "Blue Bottle")],
    ),
    ("Priya's favourite food is ramen.", "Jonas", [F("Priya", "favourite food", "ramen")]),
    ("Leo's girlfriend is Ana.", "Maya", [F("Leo", "girlfriend", "Ana")]),
    ("Maya's birthday is July 9.", "Leo", [F("Maya", "birthday", "July 9")]),
    ("Maya's GitHub username is mayab.", "Priya", [F("Maya", "github username", "mayab")]),
    (
        "I've been going back and forth on the architecture for weeks, and honestly the hardest part "
        "isn't the code, it's that my manager is Dana Whitfield and she wants everything documented "
        "twice, which slows the whole thing down.",
        "Jonas",
        [F("Jonas", "manager", "Dana Whitfield")],
    ),
    # --- long multi-fact introductions --------------------------------------------
    (
        "Hey! My name is Leo, I'm a frontend engineer at Canva, I live in Sydney and I mostly use React "
        "and TypeScript.",
        None,
        [
            F("user", "name", "Leo"),
            F("user", "role", "frontend engineer"),
            F("user", "works_at", "Canva"),
            F("user", "lives_in", "Sydney"),
            F("user", "uses:react", "React"),
            F("user", "uses:typescript", "TypeScript"),
        ],
    ),
    (
        "Intro for the new folks: my name is Maya, I'm the mobile team lead at Duolingo, and I live in "
        "Pittsburgh with my two dogs.",
        "Maya",
        [
            F("Maya", "name", "Maya"),
            F("Maya", "role", "mobile team lead"),
            F("Maya", "works_at", "Duolingo"),
            F("Maya", "lives_in", "Pittsburgh"),
            F("Maya", "count:dogs", "two"),
        ],
    ),
]

NO_FACTS = [
    ("What's the weather like in Berlin today?", None),
    ("Do you think I should move to Lisbon?", "Jonas"),
    ("If I lived in Paris I'd eat croissants every day.", None),
    ("I don't want to learn Java.", "Sam"),
    ("I don't want a cat, they're too much work.", None),
    ("My point is that it is hard.", "Leo"),
    ("The weather is nice.", None),
    ("You should try yoga, it helps a lot with back pain.", None),
    ("You could use Terraform for that, it's pretty standard.", "Priya"),
    ('Maya said "I love sushi" but I think she was joking.', "Sam"),
    ('Sam told me, "I\'m moving to Berlin."', "Maya"),
    ('Dana asked, "Is anyone allergic to nuts?"', "Leo"),
    ("Is Rust better than Go for CLI tools?", None),
    ("lol that's hilarious", "Jonas"),
    ("Thanks, that worked!", None),
    ("Good morning everyone", "Priya"),
    ("Can you remind me what my manager's name is?", None),
    ("Where do I live again? I forgot what I told you.", None),
    ("Python is a great language for beginners.", "Sam"),
    ("Remote work is the future.", "Maya"),
    ("My question is whether we should cache this.", "Leo"),
    ("My guess is that the API is rate limiting us.", "Jonas"),
    ("My understanding is that the cache is invalidated hourly.", None),
    ("My bad, I sent the wrong link.", "Priya"),
    ("What if we switched to GitHub Actions?", "Sam"),
    ("Should I switch from Jenkins to GitHub Actions?", None),
    ("If we decided to ship on Friday, would QA be ready?", "Leo"),
    ("I'm not sure if I'm allergic to anything.", None),
    ("I might move to Denver, not sure yet.", "Maya"),
    ("Happy Friday! \U0001f389", "Jonas"),
    ("brb grabbing coffee", "Sam"),
    ("Can you summarize this article for me?", None),
    ("How do I center a div?", None),
    ("The new iPhone looks expensive.", "Priya"),
    ("Traffic in this city is terrible.", None),
    ("It is what it is.", "Leo"),
    ("Let's circle back on this tomorrow.", "Maya"),
    ("Does anyone know who owns the billing service?", "Jonas"),
    ("Who's the manager of the data team?", "Sam"),
    ("Have you tried turning it off and on again?", "Priya"),
    ("If I had a dog, I'd name it Rex.", None),
    ("I'd never work at a bank.", "Leo"),
    ("The deadline question is still open, nobody knows yet.", "Maya"),
    ("That's a good point, thanks.", None),
    ("Interesting, I didn't know that.", "Jonas"),
    ("The best way to learn Rust is to build something.", None),
    ("Coffee is overrated.", "Sam"),
    ("What's a good name for a dog?", None),
    ("Could you explain how OAuth works, step by step?", None),
    ("My name field keeps getting cleared on the signup form, any idea why?", None),
    ("Sounds good to me.", "Priya"),
    ("ok", None),
    ("Please review my PR when you get a chance.", "Leo"),
    ("Would you recommend living in Amsterdam or Rotterdam?", None),
    ("Why do people hate running so much?", None),
    ("Everyone loves pizza.", "Maya"),
    ("Apparently the average commute in London is 45 minutes.", None),
    ("I was wondering if you could help me with a cover letter for a job I saw yesterday.", None),
    ("Imagine I worked at NASA, what would my day look like?", None),
]


KNOWN_FAMILIES = {
    "name",
    "role",
    "works_at",
    "lives_in",
    "from",
    "owns",
    "count",
    "uses",
    "allergic_to",
    "likes",
    "prefers",
    "is",
    "plans",
    "deadline",
    "decided",
}


def main():
    rows = [(t, s, f) for t, s, f in WITH_FACTS] + [(t, s, []) for t, s in NO_FACTS]
    texts = [r[0] for r in rows]
    assert len(texts) == len(set(texts)), "duplicate texts"
    for _, _, facts in rows:
        for f in facts:
            assert f["slot"] == f["slot"].lower(), f
            assert f["object"] and f["subject"] and f["slot"]
            assert not f["object"].lower().startswith(("a ", "an ", "the ", "my "))
            if f["slot"].startswith("prefers:") and "|" in f["slot"]:
                a, b = f["slot"][len("prefers:") :].split("|")
                assert a < b and a == a.lower() and b == b.lower(), f
    random.Random(20230520).shuffle(rows)

    with open(OUT, "w", encoding="utf-8") as fh:
        for i, (text, speaker, facts) in enumerate(rows):
            when = BASE + timedelta(hours=7 * i, minutes=(13 * i) % 60)
            obj = {
                "text": text,
                "speaker": speaker,
                "occurred_at": when.isoformat(),
                "facts": facts,
            }
            fh.write(json.dumps(obj, ensure_ascii=False) + "\n")

    n_with = sum(1 for r in rows if r[2])
    n_without = len(rows) - n_with
    families = Counter(f["slot"].split(":", 1)[0] for r in rows for f in r[2])
    print(f"wrote {OUT}")
    print(f"lines: {len(rows)}")
    print(f"statements with facts: {n_with}")
    print(f"statements without facts: {n_without}")
    print(f"facts total: {sum(families.values())}")
    plain = sum(n for fam, n in families.items() if ":" not in fam and fam not in KNOWN_FAMILIES)
    print(f'facts with a plain attribute slot ("my X is Y"): {plain}')
    print("facts by slot family:")
    for fam, n in sorted(families.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {fam}: {n}")


if __name__ == "__main__":
    main()
