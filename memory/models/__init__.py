"""The memory app's tables: the cognitive network (``graph``: networks, cues, edges, engrams,
recall events, imports, moderation, erasure) and the knowledge extracted from interactions
(``knowledge``: episodes, entities, facts, skills, jobs), and the tenant's language model
(``llm``: provider settings and the usage meter), and the memory of work (``work``: tasks,
steps, their causal links, the tenant's intents)."""

from memory.models.graph import (
    EMBEDDABLE_CUE,
    EMBEDDING_DIMENSIONS,
    SEARCH_CONFIG,
    Cue,
    CueVector,
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
from memory.models.work import Intent, Step, StepLink, Task

__all__ = [
    "EMBEDDABLE_CUE",
    "EMBEDDING_DIMENSIONS",
    "SEARCH_CONFIG",
    "Cue",
    "CueVector",
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
    "Intent",
    "Job",
    "LlmProvider",
    "LlmUsage",
    "ModerationItem",
    "Network",
    "RecallEvent",
    "Skill",
    "SkillEvidence",
    "Step",
    "StepLink",
    "Task",
    "WritePolicy",
]
