"""Contracts: the one typed description of what an operation takes and what it answers.

Each operation has an input model and an output model (pydantic), defined next to its services
(``memory/contracts.py``, ``roles/contracts.py``, ...). REST validates request bodies with them
and renders their JSON (drf-spectacular builds the OpenAPI schema from the same classes), MCP
tools take them as typed arguments (the SDK builds the tool's input schema from them), and the
dashboard fills them from forms. So a rule, a limit or an error message is written once.

``validated()`` turns pydantic's errors into one ``ValidationFailed`` that names every bad field
the way the client wrote it (``engrams[3].strength``), with messages for people.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime
from typing import Annotated, Any, ClassVar

from django.utils.dateparse import parse_datetime
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)
from pydantic_core import ErrorDetails, PydanticCustomError

from base.errors import ValidationFailed

SPACE = " \t\n\r"
"""The white space trimmed from names and keys (the JSON schema's patterns name the same four)."""
NOT_BLANK = "^[^\\u0000]*[^\\u0000 \\t\\n\\r][^\\u0000]*$"
"""JSON-schema pattern of text that is not only white space (and holds no NUL)."""
NULL: dict[str, Any] = {"type": "null"}
BLANKS: list[dict[str, Any]] = [
    NULL,
    {"type": "string", "maxLength": 0},
    {"type": "array", "maxItems": 0},
]
ONLY_SPACE: dict[str, Any] = {"type": "string", "pattern": "^[ \\t\\n\\r]*$"}


def document_blanks(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """The JSON schema says what the API takes: where a blank means "not sent" it documents
    null, "" and [] as accepted (null alone for ``null_means_absent``); a field that may be left
    out but not sent as null (``required_if_sent``) loses the null of its ``X | None`` type."""
    blank = getattr(model, "blank_means_absent", ())
    null = getattr(model, "null_means_absent", ())
    not_null = getattr(model, "required_if_sent", ())
    for name, prop in list(schema.get("properties", {}).items()):
        if name not in blank and name not in null and name not in not_null:
            continue
        meta = {k: prop.pop(k) for k in ("title", "description", "default") if k in prop}
        branches = prop.pop("anyOf", None) or [prop]
        accepted = BLANKS if name in blank else [NULL] if name in null else []
        branches += [branch for branch in accepted if branch not in branches]
        if name in not_null:
            branches = [branch for branch in branches if branch != NULL]
        one = len(branches) == 1
        schema["properties"][name] = {**branches[0], **meta} if one else {"anyOf": branches, **meta}


def or_only_space(schema: dict[str, Any]) -> None:
    """json_schema_extra of optional text that white space alone leaves unset."""
    branches = schema.pop("anyOf", None) or [dict(schema)]
    schema.clear()
    schema["anyOf"] = [*branches, ONLY_SPACE]


class Contract(BaseModel):
    """Base of every input and output model: unknown fields are refused, never ignored."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=document_blanks)
    # Fields for which null, "" and [] mean "not sent" (the default applies), as clients send
    # optional arguments they have no value for.
    blank_means_absent: ClassVar[tuple[str, ...]] = ()
    # Fields for which null (only) means "not sent".
    null_means_absent: ClassVar[tuple[str, ...]] = ()
    # Fields of an edit that may be left out but, when sent, may not be null.
    required_if_sent: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="before")
    @classmethod
    def _drop_blank(cls, data: Any) -> Any:
        if isinstance(data, dict) and (cls.blank_means_absent or cls.null_means_absent):
            return {
                key: value
                for key, value in data.items()
                if not (key in cls.blank_means_absent and _blank(value))
                and not (key in cls.null_means_absent and value is None)
            }
        return data

    def as_json(self) -> dict[str, Any]:
        """The JSON an interface sends (field aliases applied, dates as ISO strings)."""
        return self.model_dump(mode="json", by_alias=True)


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, str | list) and not value)


class QueryContract(Contract):
    """Query parameters: text that may be empty, and unknown ones (a cache-buster, ``format``)
    ignored as web servers do; an empty parameter is one not sent."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=document_blanks)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls.blank_means_absent = tuple(cls.model_fields)


class Output(Contract):
    """Base of answers: built by presenters from services' results, never from clients."""

    model_config = ConfigDict(
        extra="forbid", populate_by_name=True, frozen=True, from_attributes=True
    )
    blank_means_absent: ClassVar[tuple[str, ...]] = ()


def validated[C: BaseModel](model: type[C], data: object) -> C:
    """``data`` as a ``model``, or ``ValidationFailed`` naming every bad field."""
    if not isinstance(data, dict) and not isinstance(data, BaseModel):
        raise ValidationFailed.field("request", "send a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid(exc) from None


def invalid(exc: ValidationError, prefix: str = "") -> ValidationFailed:
    """One ValidationFailed for all of pydantic's errors, the first in the message."""
    fields: dict[str, str] = {}
    for error in exc.errors(include_url=False):
        name = field_path(error["loc"], prefix)
        fields.setdefault(name, message_for(error))
    first, message = next(iter(fields.items()))
    more = f" (and {len(fields) - 1} more)" if len(fields) > 1 else ""
    return ValidationFailed(f"{first}: {message}{more}", fields=fields)


def field_path(loc: tuple[int | str, ...], prefix: str = "") -> str:
    """``("engrams", 3, "strength")`` -> ``engrams[3].strength``."""
    path = prefix
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part.startswith("function-") or part in ("str", "list[str]"):
            continue  # a union's branch name, not a field
        else:
            path += f".{part}" if path else part
    return path or "request"


_TYPE_NAMES = {
    "string_type": "must be text",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "dict_type": "must be a JSON object",
    "list_type": "must be a list",
    "model_type": "must be a JSON object",
    "model_attributes_type": "must be a JSON object",
    "datetime_type": "must be an ISO 8601 date-time",
    "datetime_parsing": "must be an ISO 8601 date-time",
    "datetime_from_date_parsing": "must be an ISO 8601 date-time",
    "date_type": "must be a date like 2026-12-31",
    "date_parsing": "must be a date like 2026-12-31",
    "date_from_datetime_parsing": "must be a date like 2026-12-31",
    "missing": "is required",
    "extra_forbidden": "is not a field here",
    "timezone_aware": "must include a time zone (for example Z)",
}


def message_for(error: ErrorDetails) -> str:
    kind, ctx = error["type"], error.get("ctx") or {}
    if kind in _TYPE_NAMES:
        return _TYPE_NAMES[kind]
    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        bound = next(iter(ctx.values()), "")
        words = {
            "greater_than_equal": "at least",
            "less_than_equal": "at most",
            "greater_than": "more than",
            "less_than": "less than",
        }[kind]
        if isinstance(bound, float) and bound.is_integer():
            bound = int(bound)
        return f"must be {words} {bound}, not {error.get('input')}"
    if kind in ("string_too_long", "too_long"):
        text = kind == "string_too_long" or isinstance(error.get("input"), str)
        unit = "characters" if text else "items"
        return f"at most {ctx.get('max_length')} {unit}"
    if kind in ("string_too_short", "too_short"):
        return "may not be empty" if ctx.get("min_length") == 1 else error["msg"]
    if kind in ("literal_error", "enum"):
        return f"one of {ctx.get('expected', '')}".replace("'", "")
    if kind == "value_error":
        return str(ctx.get("error", error["msg"]))
    return error["msg"]


def refuse(message: str) -> PydanticCustomError:
    """A validation error with our own wording (raise it from a validator)."""
    return PydanticCustomError("mnemo", message)


# --- field types shared by the contracts ----------------------------------------------------


def _unicode(value: str) -> str:
    """Lone surrogates ("\\ud800" in JSON) decode, but no UTF-8 holds them: Postgres and every
    JSON answer would fail on them."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise refuse("holds an unpaired surrogate (\\ud800-\\udfff): not valid Unicode") from None
    return value


def _clean_text(value: str) -> str:
    if "\x00" in value:
        raise refuse("may not contain NUL characters")
    return _unicode(value)


def _instant(value: object) -> object:
    """An ISO 8601 date-time with a time zone (impossible dates like 2024-02-30 refused)."""
    if isinstance(value, datetime):
        parsed: datetime | None = value
    elif isinstance(value, str):
        try:
            parsed = parse_datetime(value.strip())
        except ValueError:  # well-formed but impossible
            parsed = None
    else:
        raise refuse("must be an ISO 8601 date-time")
    if parsed is None:
        raise refuse("must be an ISO 8601 date-time")
    if parsed.tzinfo is None:
        raise refuse("must include a time zone (for example Z)")
    if not in_range(parsed):
        raise refuse("must be between the years 1 and 9999 in UTC")
    return parsed.astimezone(UTC)  # (Postgres takes offsets up to 15:59 only; ISO up to 23:59)


def in_range(moment: datetime) -> bool:
    """Whether an aware date-time exists in UTC (0001-01-01T00:00+23:59 does not)."""
    try:
        moment.astimezone(UTC)
    except OverflowError:
        return False
    return True


def blank_is_none(value: object) -> object:
    """For optional text: "" (or only spaces) is the same as not sending it."""
    return None if isinstance(value, str) and not value.strip(SPACE) else value


def identifier(value: object, pattern: re.Pattern[str], rule: str) -> str:
    """A key, slug or name as a client may write it: surrounding space and (ASCII) capitals
    forgiven, anything else refused with ``rule``. The JSON schema's pattern is ``lenient(...)``
    of the same expression."""
    if not isinstance(value, str) or not value.isascii():
        raise refuse(rule)
    cleaned = value.strip(SPACE).lower()  # (ASCII only: "K", the kelvin sign, lowers to "k")
    if not pattern.fullmatch(cleaned):
        raise refuse(rule)
    return cleaned


def lenient(core: str, *, padded: bool = True) -> str:
    """The JSON-schema pattern of what ``identifier`` takes for ``core`` (a lower-case ASCII
    expression): the same, in either case, with spaces around (``padded``; never in a path)."""
    either_case = re.sub(r"a-z", "A-Za-z", core)
    pad = "[ \\t\\n\\r]*" if padded else ""
    return f"^{pad}(?:{either_case}){pad}$"


def _day(value: object) -> object:
    """A date written as YYYY-MM-DD (pydantic alone would also read "0" as 1970-01-01)."""
    if isinstance(value, str) and not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        raise refuse("must be a date like 2026-12-31")
    return value


Day = Annotated[date, BeforeValidator(_day), Field(json_schema_extra={"format": "date"})]
"""A calendar day, as a query parameter or a field."""


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise refuse("must be a finite number")
    return value


Unicode = Annotated[str, AfterValidator(_unicode)]
"""A string that is valid Unicode (no unpaired surrogates)."""

Text = Annotated[
    str, AfterValidator(_clean_text), Field(json_schema_extra={"pattern": "^[^\\u0000]*$"})
]
"""Valid Unicode without NUL characters: what Postgres can store."""

Instant = Annotated[datetime, BeforeValidator(_instant)]
"""An aware date-time sent as ISO 8601 text."""

UnitInterval = Annotated[float, Field(strict=True, ge=0, le=1), AfterValidator(_finite)]
"""A number from 0 to 1 (integers allowed; strings and booleans refused)."""


def whole(value: object) -> object:
    """JSON has one number type: 454.0 is the whole number JSON Schema says it is (true is not)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def query_int(value: object) -> object:
    """Query parameters arrive as text: ASCII digits only (``str.isdigit`` would take "²")."""
    if isinstance(value, str):
        if not re.fullmatch(r"[0-9]{1,9}", value):
            raise refuse("must be a whole number")
        return int(value)
    return value


PageSize = Annotated[int, Field(ge=1, le=200), BeforeValidator(query_int)]
"""How many rows a page holds (a query parameter)."""


class ErrorDetailOut(Output):
    code: str = Field(description="Stable, machine-readable: validation_error, not_found, ...")
    message: str = Field(description="For people; may change.")
    fields: dict[str, str] | None = Field(None, description="The problem with each input field.")
    errors: list[dict[str, Any]] | None = Field(
        None, description="DPML problems (line, column, code, message) when a document is refused"
    )


class ErrorOut(Output):
    """Every error answer: ``{"error": {"code", "message", "fields"?}}``."""

    error: ErrorDetailOut
