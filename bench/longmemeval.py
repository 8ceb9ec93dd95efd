"""Retrieval quality on LongMemEval_S: Mnemo's recall against BM25 and dense (vector) retrieval.

    make bench-quality                          # 60 questions, stratified by type
    make bench-quality QUALITY_ARGS="--questions 200"

Each question's haystack (its ~50 chat sessions) is remembered turn by turn into its own network
(``lme:<question id>``), embedded with the same local MiniLM, then the question is asked. Gold
evidence is LongMemEval's: the answer sessions, and the turns marked ``has_answer``.

All three methods return turns ranked for the same question over the same turns; metrics are
taken at equal k and at equal context tokens (turns are added in rank order until the budget):

* session recall@k — share of the gold sessions that appear among the top-k turns' sessions
* evidence recall@k — share of the gold turns among the top-k turns
* session / evidence MRR — 1 / rank of the first turn of a gold session / the first gold turn
  (0 when none is in the top 50)
* ... and both again within a token budget.

BM25 (k1=1.2, b=0.75) and the dense baseline (cosine on the stored embeddings) run in this
process on exactly the turns Mnemo holds.
"""

from __future__ import annotations

import argparse
import json
import lzma
import math
import os
import random
import sys
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from recall import migrate

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "eval-data" / "longmemeval" / "longmemeval_s_dedup.json.xz"
MAX_TURN_CHARS = 4000  # LongMemEval turns are long; the embedding model reads 256 tokens anyway


def load(path: Path) -> dict:
    with lzma.open(path) as handle:
        return json.load(handle)


def pick(questions: list[dict], count: int, seed: int) -> list[dict]:
    """``count`` questions, stratified by question type, deterministic."""
    by_type: dict[str, list[dict]] = defaultdict(list)
    for q in questions:
        by_type[q["question_type"]].append(q)
    rng = random.Random(seed)
    chosen: list[dict] = []
    types = sorted(by_type)
    while len(chosen) < count and any(by_type.values()):
        for kind in types:  # round robin over the types that still have questions
            pool = by_type[kind]
            if pool and len(chosen) < count:
                chosen.append(pool.pop(rng.randrange(len(pool))))
    return chosen


def parse_date(text: str) -> datetime:
    return datetime.strptime(text.split(" (")[0] + text.split(")")[1], "%Y/%m/%d %H:%M").replace(
        tzinfo=UTC
    )


def turns_of(question: dict, sessions: dict) -> list[dict]:
    """The haystack's turns in order; a session listed twice in a haystack is read once."""
    out = []
    seen: set[str] = set()
    for sid, date in zip(question["haystack_session_ids"], question["haystack_dates"], strict=True):
        if sid in seen:
            continue
        seen.add(sid)
        for index, turn in enumerate(sessions[sid]):
            out.append(
                {
                    "session": sid,
                    "index": index,
                    "role": turn["role"],
                    "date": parse_date(date),
                    "content": f"{turn['role']}: {turn['content']}"[:MAX_TURN_CHARS],
                    "gold": bool(turn.get("has_answer")),
                }
            )
    return out


class BM25:
    def __init__(self, docs: list[list[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.docs = docs
        self.k1, self.b = k1, b
        self.avg = sum(len(d) for d in docs) / max(len(docs), 1)
        self.df = Counter(term for doc in docs for term in set(doc))
        self.tf = [Counter(doc) for doc in docs]
        self.n = len(docs)

    def scores(self, query: list[str]) -> list[float]:
        out = []
        for tf, doc in zip(self.tf, self.docs, strict=True):
            score = 0.0
            for term in query:
                if term not in tf:
                    continue
                idf = math.log(1 + (self.n - self.df[term] + 0.5) / (self.df[term] + 0.5))
                freq = tf[term]
                score += (
                    idf
                    * freq
                    * (self.k1 + 1)
                    / (freq + self.k1 * (1 - self.b + self.b * len(doc) / self.avg))
                )
            out.append(score)
        return out


def rrf(rankings: list[list[int]], k: int = 60) -> list[int]:
    """Reciprocal-rank fusion, the usual hybrid of a lexical and a dense ranking."""
    fused: dict[int, float] = defaultdict(float)
    for ranking in rankings:
        for rank, item in enumerate(ranking, 1):
            fused[item] += 1 / (k + rank)
    return sorted(fused, key=lambda item: -fused[item])


def metrics(
    ranked: list[int],
    turns: list[dict],
    question: dict,
    ks: list[int],
    budget: int,
    tokens: list[int],
) -> dict[str, float]:
    gold_sessions = set(question["answer_session_ids"])
    gold_turns = {i for i, t in enumerate(turns) if t["gold"]}
    out: dict[str, float] = {}
    for k in ks:
        top = ranked[:k]
        out[f"session@{k}"] = len({turns[i]["session"] for i in top} & gold_sessions) / len(
            gold_sessions
        )
        if gold_turns:
            out[f"evidence@{k}"] = len(set(top) & gold_turns) / len(gold_turns)
    # reciprocal rank of the first turn from a gold session, and of the first gold turn
    out["session MRR"] = next(
        (1 / rank for rank, i in enumerate(ranked, 1) if turns[i]["session"] in gold_sessions),
        0.0,
    )
    if gold_turns:
        out["evidence MRR"] = next(
            (1 / rank for rank, i in enumerate(ranked, 1) if i in gold_turns), 0.0
        )
    spent, within = 0, []
    for i in ranked:
        if spent + tokens[i] > budget:
            continue
        within.append(i)
        spent += tokens[i]
    out[f"session@{budget}tok"] = len({turns[i]["session"] for i in within} & gold_sessions) / len(
        gold_sessions
    )
    if gold_turns:
        out[f"evidence@{budget}tok"] = len(set(within) & gold_turns) / len(gold_turns)
    return out


def reuse_vectors(tenant_id: int, network_id: int) -> None:
    """Vectors of the same text from the bench's earlier networks (another --index of the same
    questions): the model gives the same vector for the same text, and embedding 500 long turns
    per question is most of an ingest. Cues the same, by word."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE memory_engram e SET embedding = o.embedding, embedding_model = o.embedding_model
              FROM (SELECT DISTINCT ON (content_hash) content_hash, embedding, embedding_model
                      FROM memory_engram WHERE tenant_id = %s AND network_id <> %s
                       AND embedding IS NOT NULL
                       AND content_hash IN (SELECT content_hash FROM memory_engram
                                             WHERE tenant_id = %s AND network_id = %s)) o
             WHERE e.tenant_id = %s AND e.network_id = %s AND e.embedding IS NULL
               AND e.content_hash = o.content_hash
            """,
            [tenant_id, network_id] * 3,
        )
        cursor.execute(
            """
            INSERT INTO memory_cuevector (cue_id, tenant_id, network_id, embedding)
            SELECT c.id, c.tenant_id, c.network_id, o.embedding
              FROM (SELECT DISTINCT ON (oc.word) oc.word, ov.embedding
                      FROM memory_cue oc
                      JOIN memory_cuevector ov ON ov.tenant_id = %s AND ov.cue_id = oc.id
                     WHERE oc.tenant_id = %s AND oc.network_id <> %s
                       AND oc.word IN (SELECT word FROM memory_cue
                                        WHERE tenant_id = %s AND network_id = %s)) o
              JOIN memory_cue c ON c.tenant_id = %s AND c.network_id = %s AND c.word = o.word
            ON CONFLICT (cue_id) DO NOTHING
            """,
            [tenant_id, tenant_id, network_id, tenant_id, network_id, tenant_id, network_id],
        )


def remember_haystack(
    tenant: Any, question: dict, sessions: dict, index: str = ""
) -> tuple[list[dict], list[int], str]:
    """Remember a question's turns into its own network and embed them (as the worker would):
    the turns, their engram ids in turn order, and the network key. ``index`` names the build:
    a new one (after a change to what remember derives) builds every network again."""
    from audit.actors import Actor
    from memory.contracts import engram_items
    from memory.services.embedding import embed_missing
    from memory.services.remember import engrams_remember
    from tenants import rls

    turns = turns_of(question, sessions)
    key = f"lme{index}:{question['question_id']}".lower()
    items = [
        {
            "content": t["content"],
            "external_id": f"{t['session']}#{t['index']}",
            "occurred_at": t["date"].isoformat(),
            "type": "ATOMIC",
        }
        for t in turns
    ]
    with rls.tenant_scope(tenant.pk):
        result = engrams_remember(
            tenant=tenant,
            actor=Actor.system("longmemeval"),
            network_key=key,
            source="import",
            items=engram_items(items),
        )
        ids = [o.id for o in result.outcomes]
        reuse_vectors(tenant.pk, result.network.pk)
        embed_missing(tenant_id=tenant.pk, network_id=result.network.pk, engram_ids=ids)
    return turns, ids, key


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument(
        "--types", default="", help="only these question types (comma-separated), e.g. to study one"
    )
    parser.add_argument("--budget", type=int, default=2000, help="context tokens")
    parser.add_argument(
        "--ablation", action="store_true", help="also Mnemo with one channel left out, and alone"
    )
    parser.add_argument(
        "--selections", action="store_true", help="also Mnemo selecting by the objectives' sum"
    )
    parser.add_argument(
        "--index", default="", help="build name: a new one remembers every haystack again"
    )
    parser.add_argument(
        "--built-only",
        action="store_true",
        help="only the questions whose haystack this index already holds (no new builds)",
    )
    parser.add_argument(
        "--dump",
        default="",
        help="write each question's rankings here (JSON lines), to study misses",
    )
    parser.add_argument(
        "--report", default="", help="print the tables from a --dump file (nothing is run)"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="skip the questions the --dump file already holds (then --report counts them all)",
    )
    args = parser.parse_args()
    if args.report:
        report(args.report, args)
        return
    migrate()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    import numpy as np

    from audit.actors import Actor
    from memory.core.text import content_lemmas, estimate_tokens
    from memory.embeddings import embed_query
    from memory.firewall import FAMILIES
    from memory.models import Engram
    from memory.services.recall import RecallOptions, network_recall
    from tenants import rls
    from tenants.models import Tenant, User
    from tenants.services import tenant_create, user_create

    data = load(DATA)
    wanted = {kind.strip() for kind in args.types.split(",") if kind.strip()}
    pool = [q for q in data["questions"] if not wanted or q["question_type"] in wanted]
    questions = pick(pool, args.questions, args.seed)
    owner = User.objects.filter(email="lme@mnemo.local").first() or user_create(
        email="lme@mnemo.local", password="longmemeval-bench-only"
    )
    tenant = Tenant.objects.filter(slug="lme").first()
    if tenant is None:
        with rls.tenant_scope(0):
            tenant = tenant_create(name="LongMemEval", slug="lme", owner=owner)
    # retrieval quality, not moderation: nothing in the chats is held or queued
    tenant.settings = {
        **tenant.settings,
        "moderation": {"firewall": dict.fromkeys(FAMILIES, "allow")},
    }
    tenant.save(update_fields=["settings"])
    if args.built_only:
        from memory.models import Network

        with rls.tenant_scope(tenant.pk):
            built = set(Network.objects.values_list("key", flat=True))
        before = len(questions)
        questions = [q for q in questions if f"lme{args.index}:{q['question_id']}".lower() in built]
        print(f"{len(questions)} of {before} questions have their haystack built")
    if args.resume and args.dump and os.path.exists(args.dump):
        with open(args.dump) as dump:
            done = {json.loads(line)["id"] for line in dump if line.strip()}
        questions = [q for q in questions if q["question_id"] not in done]
        print(f"{len(done)} questions already in {args.dump}; {len(questions)} to go")
    actor = Actor.system("longmemeval")
    every = frozenset({"text", "vector", "activation"})
    # "mnemo" selects as recall does by default (auto: Pareto fronts with a task at hand, else
    # the score); "mnemo pareto" forces the fronts, "mnemo score" the one score (relevance
    # weighted by salience), "mnemo sum" the sum of the three objectives
    variants = {
        "mnemo": (every, "auto"),
        "mnemo pareto": (every, "pareto"),
        "mnemo score": (every, "score"),
    }
    if args.selections:
        variants["mnemo sum"] = (every, "sum")
    if args.ablation:
        for channel in sorted(every):
            variants[f"-{channel}"] = (every - {channel}, "auto")
            variants[f"{channel} only"] = (frozenset({channel}), "auto")
    ks = [5, 10]
    totals: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    by_type: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    started = time.perf_counter()
    for number, question in enumerate(questions, 1):
        turns, ids, key = remember_haystack(tenant, question, data["sessions"], args.index)
        with rls.tenant_scope(tenant.pk):
            vectors = dict(
                Engram.objects.filter(tenant=tenant, pk__in=ids).values_list("id", "embedding")
            )
        index_of = {engram_id: i for i, engram_id in enumerate(ids)}
        tokens = [estimate_tokens(t["content"]) for t in turns]
        now = parse_date(question["question_date"])
        ranked = {}
        for method, (channels, selection) in variants.items():
            with rls.tenant_scope(tenant.pk):
                mind = network_recall(
                    tenant=tenant,
                    actor=actor,
                    network_key=key,
                    query=question["question"],
                    # looking without touching: a run must not change the next one's ranking
                    options=RecallOptions(
                        k=50,
                        token_budget=100_000,
                        now=now,
                        record=False,
                        channels=channels,
                        selection=selection,
                    ),
                )
            ranked[method] = [index_of[e.id] for e in mind.engrams]
        bm25 = BM25([content_lemmas(t["content"]) for t in turns])
        scores = bm25.scores(content_lemmas(question["question"]))
        ranked["bm25"] = sorted(range(len(turns)), key=lambda i: -scores[i])[:50]
        q = np.array(embed_query(question["question"]))
        matrix = np.array([vectors[engram_id] for engram_id in ids])
        sims = matrix @ q
        ranked["dense"] = list(np.argsort(-sims)[:50])
        ranked["hybrid"] = rrf([ranked["bm25"], ranked["dense"]])[:50]
        if args.dump:
            with open(args.dump, "a") as dump:
                record = {
                    "id": question["question_id"],
                    "type": question["question_type"],
                    "question": question["question"],
                    "gold": [i for i, t in enumerate(turns) if t["gold"]],
                    "ranked": {m: [int(i) for i in order] for m, order in ranked.items()},
                    # enough to take every metric again from the dump (``--report``)
                    "sessions": [t["session"] for t in turns],
                    "answer_session_ids": question["answer_session_ids"],
                    "tokens": tokens,
                }
                dump.write(json.dumps(record) + "\n")
        for method, order in ranked.items():
            for name, value in metrics(order, turns, question, ks, args.budget, tokens).items():
                totals[method][name].append(value)
                by_type[f"{question['question_type']}|{method}"][name].append(value)
        elapsed = time.perf_counter() - started
        print(f"  {number}/{len(questions)} questions, {elapsed:,.0f} s", end="\r", flush=True)
    print()
    print_tables(totals, by_type, [*variants, "bm25", "dense", "hybrid"], len(questions), args)


def print_tables(
    totals: dict[str, dict[str, list[float]]],
    by_type: dict[str, dict[str, list[float]]],
    methods: list[str],
    count: int,
    args: argparse.Namespace,
) -> None:
    names = list(next(iter(totals.values())))
    print(f"\nLongMemEval_S, {count} questions (seed {args.seed}), budget {args.budget} tokens\n")
    print(f"{'method':<16}" + "".join(f"{n:>18}" for n in names))
    for method in methods:
        row = totals[method]
        print(f"{method:<16}" + "".join(f"{sum(row[n]) / len(row[n]):>18.3f}" for n in names))
    types = sorted({key.split("|")[0] for key in by_type})
    shown = [m for m in ("mnemo", "mnemo score", "bm25", "dense", "hybrid") if m in methods]
    for metric in ("evidence@10", "session@10", "evidence MRR", "session MRR"):
        if metric not in names:
            continue
        print(f"\n{metric} by question type:")
        print(f"{'type':<28}{'n':>5}" + "".join(f"{m:>13}" for m in shown))
        for kind in types:
            cells = []
            for method in shown:
                values = by_type[f"{kind}|{method}"][metric]
                cells.append(f"{sum(values) / len(values):>13.3f}" if values else f"{'-':>13}")
            n = len(by_type[f"{kind}|mnemo"][metric])
            print(f"{kind:<28}{n:>5}" + "".join(cells))


def report(path: str, args: argparse.Namespace) -> None:
    """The tables again from a ``--dump`` (a long run stopped part way still counts what it
    measured); a question dumped twice counts once, its last record."""
    records: dict[str, dict] = {}
    with open(path) as dump:
        for line in dump:
            record = json.loads(line)
            if "sessions" in record:
                records[record["id"]] = record
    if not records:
        print(f"{path}: no question with its sessions (dumped before --report existed)")
        return
    totals: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    by_type: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    methods: list[str] = []
    for record in records.values():
        gold = set(record["gold"])
        turns = [{"session": sid, "gold": i in gold} for i, sid in enumerate(record["sessions"])]
        question = {"answer_session_ids": record["answer_session_ids"]}
        for method, order in record["ranked"].items():
            if method not in methods:
                methods.append(method)
            values = metrics(order, turns, question, [5, 10], args.budget, record["tokens"])
            for name, value in values.items():
                totals[method][name].append(value)
                by_type[f"{record['type']}|{method}"][name].append(value)
    print_tables(totals, by_type, methods, len(records), args)


if __name__ == "__main__":
    sys.exit(main())
