"""The memory app's tables: the cognitive network (``graph``: networks, cues, edges, engrams,
recall events, imports, moderation, erasure) and the knowledge extracted from interactions
(``knowledge``: episodes, entities, facts, skills, jobs), and the tenant's language model
(``llm``: provider settings and the usage meter)."""

from memory.models.graph import (
    EMBEDDING_DIMENSIONS,
    SEARCH_CONFIG,
    Cue,
    Edge,
    Engram,
    EngramCue,
    Erasure,
    ImportJob,
    ModerationItem,
    Network,
    RecallEvent,
    WritePolicy,
)
from memory.models.knowledge import (
    Entity,
    EntityAlias,
    EntityMention,
    Episode,
    Fact,
    FactEvidence,
    Job,
    Skill,
    SkillEvidence,
)
from memory.models.llm import LlmProvider, LlmUsage

__all__ = [
    "EMBEDDING_DIMENSIONS",
    "SEARCH_CONFIG",
    "Cue",
    "Edge",
    "Engram",
    "EngramCue",
    "Entity",
    "EntityAlias",
    "EntityMention",
    "Episode",
    "Erasure",
    "Fact",
    "FactEvidence",
    "ImportJob",
    "Job",
    "LlmProvider",
    "LlmUsage",
    "ModerationItem",
    "Network",
    "RecallEvent",
    "Skill",
    "SkillEvidence",
    "WritePolicy",
]
