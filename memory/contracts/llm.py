"""The contracts of the workspace's language model: its settings (the key goes in, never out)
and the usage meter."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BeforeValidator, Field, StrictBool

from base.contracts import (
    NOT_BLANK,
    SPACE,
    Contract,
    Output,
    QueryContract,
    Text,
    query_int,
    refuse,
    whole,
)
from memory.models import LlmProvider
from memory.services.llm import MAX_DAILY_TOKENS, URL, DayUse

Tokens = Annotated[int, Field(strict=True, ge=0, le=MAX_DAILY_TOKENS), BeforeValidator(whole)]


def _not_blank(value: str) -> str:
    if not value.strip(SPACE):
        raise refuse("is required and may not be empty")
    return value.strip(SPACE)


# what memory.services.llm takes: http(s), a host, an optional port and path; no credentials
URL_PATTERN = f"^{URL.pattern}$"
BaseUrl = Annotated[
    Text,
    Field(max_length=500, json_schema_extra={"pattern": URL_PATTERN}),
    AfterValidator(_not_blank),
]
ModelName = Annotated[
    Text,
    Field(max_length=120, json_schema_extra={"pattern": NOT_BLANK}),
    AfterValidator(_not_blank),
]


class LlmIn(Contract):
    base_url: BaseUrl = Field(
        description="the OpenAI-compatible API's base, such as https://api.openai.com/v1"
    )
    model: ModelName
    api_key: Annotated[Text, Field(max_length=500)] | None = Field(
        None,
        description="sealed at rest and never shown again; leave out to keep the one set "
        "(a new provider without one sends no Authorization header: a local server)",
    )
    daily_tokens: Tokens | None = Field(None, description="tokens a day at most (default 200,000)")
    enabled: StrictBool | None = None

    null_means_absent = ("api_key", "daily_tokens", "enabled")


class LlmOut(Output):
    configured: bool
    base_url: str
    model: str
    key_hint: str = Field(description="the key's last four characters (empty for short keys)")
    daily_tokens: int
    enabled: bool
    circuit: Literal["closed", "open"]
    open_until: datetime | None
    failures: int
    last_error: str
    spent_today: int
    tokens_left: int


def present_llm(config: LlmProvider | None, *, spent_today: int, now: datetime) -> LlmOut:
    if config is None:
        return LlmOut(
            configured=False,
            base_url="",
            model="",
            key_hint="",
            daily_tokens=0,
            enabled=False,
            circuit="closed",
            open_until=None,
            failures=0,
            last_error="",
            spent_today=spent_today,
            tokens_left=0,
        )
    is_open = config.open_until is not None and config.open_until > now
    return LlmOut(
        configured=True,
        base_url=config.base_url,
        model=config.model,
        key_hint=config.key_hint,
        daily_tokens=config.daily_tokens,
        enabled=config.enabled,
        circuit="open" if is_open else "closed",
        open_until=config.open_until if is_open else None,
        failures=config.failures,
        last_error=config.last_error,
        spent_today=spent_today,
        tokens_left=max(0, config.daily_tokens - spent_today),
    )


class UsageFilters(QueryContract):
    days: Annotated[int, Field(ge=1, le=366), BeforeValidator(query_int)] = 30


class DayUseOut(Output):
    day: date
    calls: int
    tokens: int
    failures: int
    fallbacks: int


class JobUseOut(Output):
    job: int
    calls: int
    tokens: int
    failures: int
    fallbacks: int


class UsageOut(Output):
    days: list[DayUseOut]
    jobs: list[JobUseOut] = Field(description="the latest jobs that called the provider")


def present_day(row: DayUse) -> DayUseOut:
    return DayUseOut(
        day=row.day,
        calls=row.calls,
        tokens=row.tokens,
        failures=row.failures,
        fallbacks=row.fallbacks,
    )
