"""recall and prime on real Postgres (embeddings computed in-process by the real model)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from audit.actors import Actor
from base.errors import NotFound
from memory.contracts import engram_items
from memory.models import Cue, Engram
from memory.services import access
from memory.services.embedding import embed_missing
from memory.services.recall import RecallOptions, network_prime, network_recall
from memory.services.remember import engrams_remember
from tenants import rls
from tests.factories import Cast

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def tenant_active(cast: Cast) -> None:
    """Direct ORM reads in these tests see the cast's tenant (services restore it after use)."""
    rls.activate(tenant_id=cast.tenant.pk)


ACTOR = Actor.system("tests")

FACTS = [
    {"content": "Redis listens on port 6379 by default", "schema": ["Redis", "port", "6379"]},
    {
        "content": "The staging database is Postgres 18 with pgvector",
        "schema": ["staging", "database", "Postgres", "pgvector"],
    },
    {
        "content": "Deploys go out on Fridays after the review",
        "schema": ["deploy", "Friday", "review"],
    },
    {"content": "Grace prefers dark roast coffee", "schema": ["Grace", "coffee", "dark roast"]},
    {
        "content": "Login then select product then checkout",
        "type": "PATTERN",
        "schema": ["login", "product", "checkout"],
    },
]


def store(
    cast: Cast, raw: list[dict[str, object]], network: str = "default", embed: bool = True
) -> None:
    with rls.tenant_scope(cast.tenant.pk):
        result = engrams_remember(
            tenant=cast.tenant,
            actor=ACTOR,
            network_key=network,
            items=engram_items(raw),
            source="api",
        )
        if embed:
            embed_missing(
                tenant_id=cast.tenant.pk,
                network_id=result.network.pk,
                engram_ids=[o.id for o in result.outcomes],
            )


def recall(cast: Cast, query: str | None, network: str = "default", **options: object):  # type: ignore[no-untyped-def]
    with rls.tenant_scope(cast.tenant.pk):
        return network_recall(
            tenant=cast.tenant,
            actor=ACTOR,
            network_key=network,
            query=query,
            options=RecallOptions(**options),
        )  # type: ignore[arg-type]


def contents(mind) -> list[str]:  # type: ignore[no-untyped-def]
    return [e.content for e in mind.engrams]


def test_recall_in_an_empty_network_says_so_and_names_the_known_ones(cast: Cast) -> None:
    with pytest.raises(NotFound, match=r"no network “default”.*none yet"):
        recall(cast, "anything")
    store(cast, [{"content": "x"}], network="notes")
    with rls.tenant_scope(cast.tenant.pk):
        mind = network_recall(
            tenant=cast.tenant,
            actor=ACTOR,
            network_key="default",
            query="anything",
            options=RecallOptions(),
            missing_ok=True,
        )
    assert mind.engrams == [] and mind.context == "" and mind.context_tokens == 0
    assert "holds no memories yet" in mind.notice and "notes" in mind.notice


def test_recall_of_a_stored_concept_finds_it_and_activates_its_neighbours(cast: Cast) -> None:
    store(cast, FACTS)
    mind = recall(cast, "redis")
    assert contents(mind)[0].startswith("Redis listens")
    words = {c.word: c for c in mind.cues}
    assert words["Redis"].depth == 0 and words["port"].depth >= 1 and words["6379"].depth >= 1
    top = mind.engrams[0]
    assert "activation" in top.why.channels and top.why.parts["relevance"] > 0
    assert mind.context.startswith("Relevant memories") and f"#{top.id}" in mind.context


def test_a_word_that_is_not_a_cue_still_finds_memories(cast: Cast) -> None:
    store(cast, FACTS)
    fuzzy = recall(cast, "reddis")  # a typo: not a cue, a trigram match
    assert any(c.seed_via == "fuzzy" for c in fuzzy.cues)
    assert contents(fuzzy)[0].startswith("Redis listens")
    semantic = recall(cast, "espresso beans", channels=frozenset({"activation"}))
    assert any(c.seed_via == "semantic" for c in semantic.cues)
    assert contents(semantic)[0] == "Grace prefers dark roast coffee"


def test_no_query_starts_from_the_hub_cues(cast: Cast) -> None:
    store(
        cast,
        FACTS + [{"content": f"Redis note {i}", "schema": ["Redis", f"n{i}"]} for i in range(5)],
    )
    mind = recall(cast, None)
    assert any(c.seed_via == "hub" and c.word == "Redis" for c in mind.cues)
    assert mind.engrams


def test_n_recalls_raise_a_cues_frequency_by_exactly_n(cast: Cast) -> None:
    store(cast, FACTS, embed=False)
    for _ in range(4):
        recall(cast, "redis redis REDIS")  # the same cue three times is still one access
    assert access.flush() == 4  # counted off the request, in one batch
    cue = Cue.objects.get(tenant=cast.tenant, lemma="redis")
    assert cue.recall_count == 4 and cue.last_recalled_at is not None
    redis = Engram.objects.get(tenant=cast.tenant, content__startswith="Redis")
    assert redis.recall_count == 4
    assert Cue.objects.get(tenant=cast.tenant, lemma="coffee").recall_count == 0


def test_recall_never_crosses_networks(cast: Cast) -> None:
    store(cast, [FACTS[0]], network="role:ops")
    store(cast, [FACTS[3]], network="role:barista")
    assert contents(recall(cast, "redis port", network="role:barista")) == []
    assert len(contents(recall(cast, "redis port", network="role:ops"))) == 1


def test_only_active_engrams_are_recalled(cast: Cast) -> None:
    store(cast, FACTS)
    Engram.objects.filter(tenant=cast.tenant, content__startswith="Redis").update(status="deleted")
    assert not any(c.startswith("Redis") for c in contents(recall(cast, "redis port 6379")))


def test_the_context_stays_within_the_token_budget(cast: Cast) -> None:
    store(
        cast,
        [
            {"content": f"Fact {i} about the deploy pipeline and its many stages " * 3}
            for i in range(30)
        ],
        embed=False,
    )
    for budget in (20, 80, 400):
        mind = recall(cast, "deploy pipeline", k=30, token_budget=budget)
        assert mind.context_tokens <= budget


def test_type_quotas_make_room_for_other_types(cast: Cast) -> None:
    atoms = [{"content": f"checkout fact {i}", "schema": ["checkout", f"f{i}"]} for i in range(10)]
    links = [
        {
            "content": f"checkout relates to cart {i}",
            "type": "LINK",
            "schema": ["cart", f"l{i}", "checkout"],
            "strength": 0.1,
        }
        for i in range(3)
    ]
    store(cast, atoms + links, embed=False)
    mind = recall(cast, "checkout", k=5)
    kinds = [e.type for e in mind.engrams]
    assert kinds.count("ATOMIC") <= 4 and "LINK" in kinds


def test_prime_prefers_frequent_and_recent_concepts_and_carries_into_the_next_recall(
    cast: Cast,
) -> None:
    notes = [{"content": f"coffee note {i}", "schema": ["coffee", f"c{i}"]} for i in range(4)]
    store(cast, FACTS + notes, embed=False)
    for _ in range(3):
        recall(cast, "coffee")
    Cue.objects.filter(tenant=cast.tenant, lemma="redis").update(
        last_recalled_at=timezone.now() - timedelta(days=300)
    )
    rls.activate(tenant_id=cast.tenant.pk)
    primed = network_prime(tenant=cast.tenant, actor=ACTOR, network_key="default")
    assert primed.cues[0].word == "coffee"
    assert any("coffee" in e.content.lower() for e in primed.engrams)
    after = recall(cast, "checkout")
    assert any(c.seed_via == "prime" for c in after.cues)
    again = recall(cast, "checkout")  # carried once, not forever
    assert not any(c.seed_via == "prime" for c in again.cues)


def test_channels_can_be_switched_for_baselines(cast: Cast) -> None:
    store(cast, FACTS)
    text_only = recall(cast, "redis port", channels=frozenset({"text"}))
    assert text_only.engrams and text_only.cues == []
    assert all(e.why.channels == ("text",) for e in text_only.engrams)
    vector_only = recall(cast, "which port does the cache use", channels=frozenset({"vector"}))
    assert vector_only.engrams
    assert all(e.why.channels == ("vector",) for e in vector_only.engrams)


# --- issue 10: causes that must not come back ----------------------------------------------


def test_the_text_channel_ranks_by_rare_words_and_finds_words_that_are_no_concept(
    cast: Cast,
) -> None:
    """BM25 over every word: no AND of all query words, no dropping of words that never became
    cues (the schema here leaves "gazebo" out), rarer words weigh more."""
    filler = [{"content": f"We talked about the garden plan number {i}"} for i in range(30)]
    target = {"content": "We built a gazebo in the garden", "schema": ["garden"]}
    store(cast, [*filler, target], embed=False)
    mind = recall(cast, "when did we build the gazebo", channels=frozenset({"text"}))
    assert contents(mind)[0] == target["content"]
    assert mind.engrams[0].why.parts["text"] > 0.3


def test_a_word_repeated_counts_a_little_more_and_saturates(cast: Cast) -> None:
    """Term frequency, softened: of two messages of the same length, the one that dwells on
    the asked word ranks first; ten repeats of one word do not beat two asked words."""
    once = {"content": "The sourdough starter sat on the shelf by the warm oven door"}
    dwells = {"content": "The sourdough starter: feed the sourdough, then bake sourdough loaves"}
    spam = {"content": " ".join(["sourdough"] * 10)}
    both = {"content": "Our sourdough needs rye flour from the mill on the hill road"}
    filler = [{"content": f"Notes on the bakery schedule, day {i}"} for i in range(20)]
    store(cast, [once, dwells, *filler], embed=False)
    ranked = contents(recall(cast, "sourdough", channels=frozenset({"text"})))
    assert ranked.index(dwells["content"]) < ranked.index(once["content"])
    store(cast, [spam, both], embed=False)
    ranked = contents(recall(cast, "sourdough rye flour", channels=frozenset({"text"})))
    assert ranked[0] == both["content"]
    assert ranked.index(both["content"]) < ranked.index(spam["content"])


def test_a_strong_text_hit_is_not_outranked_by_weak_agreement(cast: Cast) -> None:
    store(
        cast,
        [
            {"content": "Invoice 88412 was paid by wire transfer on Monday"},
            *({"content": f"Payment note {i}: paid, monday, transfer pending"} for i in range(8)),
        ],
    )
    mind = recall(cast, "invoice 88412")
    assert contents(mind)[0].startswith("Invoice 88412")


def test_a_speakers_label_is_not_a_concept(cast: Cast) -> None:
    store(
        cast,
        [{"content": f"Maya: message number {i} about the quarterly budget"} for i in range(5)],
        embed=False,
    )
    with rls.tenant_scope(cast.tenant.pk):
        words = set(Cue.objects.filter(tenant=cast.tenant).values_list("word", flat=True))
    assert "Maya" not in words and "budget" in words
    # the text still holds the name: a question about Maya finds her messages
    assert recall(cast, "what did Maya say", channels=frozenset({"text"})).engrams


def test_recall_can_look_without_touching(cast: Cast) -> None:
    store(cast, FACTS)
    recall(cast, "redis", record=False)
    access.flush()
    with rls.tenant_scope(cast.tenant.pk):
        assert not Engram.objects.filter(tenant=cast.tenant, recall_count__gt=0).exists()
    recall(cast, "redis")
    access.flush()
    with rls.tenant_scope(cast.tenant.pk):
        assert Engram.objects.filter(tenant=cast.tenant, recall_count__gt=0).exists()


def test_accesses_after_now_do_not_count_at_now(cast: Cast) -> None:
    """One clock: recalled today, a memory has not been recalled as of last year."""
    store(cast, FACTS)
    recall(cast, "redis")  # touches the Redis engram now
    past = timezone.now() - timedelta(days=365)
    mind = recall(cast, "redis", now=past, record=False)
    redis = next(e for e in mind.engrams if e.content.startswith("Redis"))
    untouched = recall(cast, "staging database", now=past, record=False).engrams[0]
    assert redis.why.parts["base_level"] == untouched.why.parts["base_level"]


def test_a_time_in_the_question_prefers_memories_from_then(cast: Cast) -> None:
    store(
        cast,
        [
            {"content": "I bought running shoes", "occurred_at": "2022-04-12T10:00:00Z"},
            {"content": "I bought hiking shoes", "occurred_at": "2022-09-03T10:00:00Z"},
        ],
    )
    now = timezone.now()
    mind = recall(cast, "what shoes did I buy in April 2022", now=now, record=False)
    assert contents(mind)[0] == "I bought running shoes"
    assert mind.engrams[0].why.parts["in_window"] == 1.0
    mind = recall(cast, "what shoes did I buy in September 2022", now=now, record=False)
    assert contents(mind)[0] == "I bought hiking shoes"


def test_the_same_memory_in_other_words_comes_back_once(cast: Cast) -> None:
    store(
        cast,
        [
            {"content": "Maya prefers TypeScript with strict mode for frontend work"},
            {"content": "Maya prefers TypeScript, strict mode, frontend"},
            {"content": "Maya drinks green tea every morning"},
        ],
    )
    mind = recall(cast, "which language does Maya prefer for the frontend")
    typescript = [e for e in mind.engrams if "TypeScript" in e.content]
    assert len(typescript) == 1 and mind.suppressed == 1


def test_a_hub_concept_still_reaches_its_oldest_memories(cast: Cast) -> None:
    """Recall once read only the newest 200 engrams of a cue: whatever was filed earlier under a
    busy concept was out of reach through it."""
    oldest = {
        "content": "Kestrel rollback plan: restore the snapshot first",
        "schema": ["kestrel", "rollback"],
        "importance": 1.0,
        "strength": 1.0,
    }
    later = [
        {
            "content": f"Kestrel note {i}",
            "schema": ["kestrel", f"note{i}"],
            "importance": 0.0,
            "strength": 0.0,
        }
        for i in range(260)
    ]
    store(cast, [oldest], embed=False)
    store(cast, later, embed=False)
    mind = recall(cast, "kestrel", channels=frozenset({"activation"}), k=3)
    assert contents(mind)[0] == oldest["content"]


def test_a_word_reaches_the_names_that_contain_it(cast: Cast) -> None:
    store(
        cast,
        [
            {"content": "Anna approves Project Falcon budget changes above 5000 EUR"},
            {"content": "The team lunch is on Thursday"},
        ],
        embed=False,
    )
    mind = recall(cast, "who approves falcon spending", channels=frozenset({"activation"}))
    seeds = {c.word: c.seed_via for c in mind.cues if c.depth == 0}
    assert seeds.get("Project Falcon") == "alias"
    assert contents(mind)[0].startswith("Anna approves Project Falcon")


def test_a_fuzzy_match_is_a_typo_not_another_word(cast: Cast) -> None:
    store(
        cast, [{"content": "It is unlikely to rain", "schema": ["unlikely", "rain"]}], embed=False
    )
    mind = recall(cast, "likely", channels=frozenset({"activation"}))
    assert mind.engrams == []
    assert recall(cast, "rainn", channels=frozenset({"activation"})).engrams  # a typo


@pytest.mark.parametrize(
    "query", ["a\\b c'd", "it's O'Brien's", "100% & more | !not", "(x) <-> y:*"]
)
def test_the_text_channel_takes_any_query(cast: Cast, query: str) -> None:
    store(cast, [{"content": "O'Brien's plan: 100% more, not less (x) y"}], embed=False)
    recall(cast, query, channels=frozenset({"text"}))  # no error from the tsquery syntax


@pytest.mark.django_db
def test_each_connection_walks_the_vector_graph_with_the_iterative_scan() -> None:
    """Set once per database connection (memory.apps); a connection drawn again, with the
    settings already made, keeps them."""
    from django.db import connection

    def settings_now() -> tuple[str, str]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT current_setting('hnsw.ef_search'), current_setting('hnsw.iterative_scan')"
            )
            row = cursor.fetchone()
        return row[0], row[1]

    assert settings_now() == ("80", "relaxed_order")
    raw = connection.connection
    assert getattr(raw, "mnemo_vector_settings", False)
    from memory.apps import vector_search_settings

    with connection.cursor() as cursor:
        cursor.execute("SET hnsw.ef_search = 40")
    vector_search_settings(sender=None, connection=connection)  # drawn again: nothing sent
    assert settings_now() == ("40", "relaxed_order")


def test_an_engram_found_by_activation_shows_the_path_to_its_best_cue(cast: Cast) -> None:
    """The shown path ends at the engram's best cue: of the activated cues it is filed under,
    the strongest, association paths preferred (energy × (1 + depth)), the lowest id on a tie.
    Picked in SQL by its place in the list sent: a wrong place names another cue."""
    from memory.models import EngramCue

    store(cast, FACTS)
    checked = 0
    for query in ("redis", "staging database review", "coffee friday", "login checkout"):
        mind = recall(cast, query, record=False)
        for engram in (e for e in mind.engrams if "activation" in e.why.channels):
            filed = set(EngramCue.objects.filter(engram_id=engram.id).values_list("cue", flat=True))
            held = [c for c in mind.cues if c.id in filed]
            best = max(held, key=lambda c: (c.energy * (1 + c.depth), -c.id))
            assert engram.why.path[-1] == best.word, (query, engram.content)
            checked += 1
    assert checked >= 4


def test_the_search_index_merges_new_entries_soon() -> None:
    """Every text search reads the GIN index's pending list through: at the default 4 MB it
    held ~18k entries at 100k engrams and made each query ~10 ms slower (DECISIONS)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'engram_search_gin'")
        (options,) = cursor.fetchone()
    assert "gin_pending_list_limit=256" in (options or [])


def test_the_network_statistics_are_asked_once_per_recall(
    cast: Cast, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The text and vector channels both need the network's size (a Redis round trip, or a
    count): one ask serves both."""
    from memory.services import recall as service

    store(cast, FACTS)
    asked: list[int] = []
    real = service._network_stats

    def counted(network):  # type: ignore[no-untyped-def]
        asked.append(network.pk)
        return real(network)

    monkeypatch.setattr(service, "_network_stats", counted)
    mind = recall(cast, "which database does staging use", record=False)
    assert contents(mind) and len(asked) == 1


def test_recall_statements_are_prepared_on_a_connection_that_runs_them_again(
    cast: Cast,
) -> None:
    """Parameters travel apart from the SQL and a statement run again is prepared, so Postgres
    can stop planning it (config.settings, DB_PREPARE_THRESHOLD). A client-side cursor (the
    Django default) prepares nothing, and this fails."""
    from django.conf import settings
    from django.db import connection

    threshold = settings.DATABASES["default"]["OPTIONS"]["prepare_threshold"]
    assert threshold, "prepared statements are off (DB_PREPARE_THRESHOLD=0)"
    store(cast, FACTS)
    for _ in range(threshold + 1):
        mind = recall(cast, "which database does staging use", record=False)
    assert contents(mind)
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any("memory_engram " in s for s in prepared), prepared


def test_a_small_networks_cues_are_matched_by_meaning_without_the_shared_graph(
    cast: Cast,
) -> None:
    """The HNSW graph holds every tenant's cues: a filtered walk through it for one network's
    few (or, before the worker embedded them, none) visits up to hnsw.max_scan_tuples others,
    ~150 ms a recall. A small network's cues are scanned exactly. With sorting off the
    planner takes the graph for an unfenced statement, so this fails without the fence."""
    from django.db import connection

    store(cast, FACTS)
    seen: list[tuple[str, object]] = []

    def capture(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        if "FROM memory_cuevector" in sql and "<=>" in sql:
            seen.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        mind = recall(cast, "espresso beans", channels=frozenset({"activation"}), record=False)
    assert any(c.seed_via == "semantic" for c in mind.cues)
    assert len(seen) == 1
    sql, params = seen[0]
    with rls.tenant_scope(cast.tenant.pk), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_sort = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "cuevector_hnsw" not in plan, plan


def test_a_question_about_what_the_agent_said_prefers_the_agents_words(cast: Cast) -> None:
    """The speaker label is metadata (not a concept); a question that points back at what
    "you" said prefers the agent's messages over the user's own, which echo its words."""
    chat = [
        {"content": "user: Which backend languages should I learn for web development work?"},
        {"content": "assistant: For backend work, Go and Python are the languages I would pick."},
        {"content": "user: Thanks, I will start learning backend development with Go."},
    ]
    store(cast, chat)
    mind = recall(cast, "Which backend languages did you recommend I learn?", record=False)
    top = mind.engrams[0]
    assert top.content.startswith("assistant:"), contents(mind)
    assert top.why.parts.get("speaker") == 1.0
    mine = recall(cast, "Which backend languages did I ask about?", record=False)
    assert mine.engrams[0].content.startswith("user:")
    assert mine.engrams[0].why.parts.get("speaker") == 1.0


def test_a_long_words_cache_key_stays_short() -> None:
    """A pasted token or a run of digits is a word too: its document-frequency key is hashed
    (the API schema test sent a 1,000-digit word, and the key was as long)."""
    from memory.services.recall import df_key

    long_one, other = "0" * 1000, "0" * 999 + "1"
    assert len(df_key(1, 2, long_one)) < 100
    assert df_key(1, 2, long_one) != df_key(1, 2, other)
    assert df_key(1, 2, "falcon") == "memory:df:1:2:falcon"
