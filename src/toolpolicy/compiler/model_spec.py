"""Load-time checks of a whole `type: model` hook: model name, prompt template and schema.

The compiler layer: it may ask the runtime which providers and schemas exist, and the grammar
to parse the prompt.
"""

from __future__ import annotations

from ..ast import ExprError
from ..errors import did_you_mean
from ..grammar.template_parse import parse_template
from ..runtime.hooks.model import KNOWN_SCHEMAS
from ..runtime.hooks.providers import check_model_name

__all__ = ["validate_model_spec"]


def validate_model_spec(model: str | None, prompt: str | None, schema: str | None) -> list[ExprError | str]:
    """Load-time checks of a `type: model` hook: model name, prompt template and schema.

    Returns the problems found: `ExprError`s (spans in `prompt`) for the template, plain
    messages for the other fields. An empty list means the hook is valid.
    """
    errors: list[ExprError | str] = []
    problem = check_model_name(model or "")
    if problem:
        errors.append(problem)
    if not (prompt or "").strip():
        errors.append("model hook needs a non-empty `prompt`")
    else:
        try:
            parse_template(prompt or "")
        except ExprError as err:
            errors.append(err)
    if (schema or "") not in KNOWN_SCHEMAS:
        hint = did_you_mean(schema or "", [k for k in KNOWN_SCHEMAS if k])
        errors.append(
            f"unknown schema `{schema}`"
            + (f"; {hint}" if hint else "; the schemas are `pre_tool_use_decision` or none (free-form text)")
        )
    return errors
