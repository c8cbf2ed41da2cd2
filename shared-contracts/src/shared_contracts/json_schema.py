"""JSON-schema helpers. ``DocumentedAs``: a lenient field documented as the named models it takes, so the API
document refers to their component schemas instead of inlining them (code generators reject inline object unions).
``InlineEnum``: an enum documented inline, like a ``Literal``."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema


class DocumentedAs:
    """``Annotated[dict[str, Any] | None, DocumentedAs(A, B)]``: validated as the annotated type (the service
    checks the value itself, each mistake with its own problem code), documented as one of ``A``, ``B`` or null,
    each by a ``$ref`` to its component schema."""

    def __init__(self, *models: type[BaseModel], nullable: bool = True) -> None:
        self.models = models
        self.nullable = nullable

    def __get_pydantic_json_schema__(self, _schema: Any, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schemas = [model.__pydantic_core_schema__ for model in self.models]
        documented = schemas[0] if len(schemas) == 1 else core_schema.union_schema([*schemas])
        return handler(core_schema.nullable_schema(documented) if self.nullable else documented)


class InlineEnum(StrEnum):
    """A ``StrEnum`` whose fields validate, serialise and are documented like a ``Literal`` of its values: the
    schema inlines ``{"enum": [...], "type": "string"}`` (no component of its own), a dump gives plain strings,
    and the code reads ``Action.BUY`` instead of bare strings."""

    @classmethod
    def __get_pydantic_core_schema__(cls, _source: Any, _handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        values = core_schema.literal_schema([member.value for member in cls])
        return core_schema.no_info_after_validator_function(
            cls, values, serialization=core_schema.plain_serializer_function_ser_schema(str, return_schema=values)
        )
