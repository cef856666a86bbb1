"""Errors raised for bad user input.

Every error names the file (when there is one), the dotted field, what was given and what is
allowed, so the CLI can print it as is and exit with code 2.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class FieldProblem:
    """One bad field: its dotted path, what was given and what is wrong or allowed."""

    field: str
    given: str
    message: str

    def render(self) -> str:
        where = self.field or "(top level)"
        given = f" (given: {self.given})" if self.given else ""
        return f"{where}: {self.message}{given}"


class InputError(ValueError):
    """Bad user input: a scenario, search space or validation file that does not validate."""

    def __init__(self, problems: list[FieldProblem], source: str | None = None):
        self.problems = list(problems)
        self.source = source
        super().__init__(self.render())

    def with_source(self, source: str) -> "InputError":
        return InputError(self.problems, source)

    def render(self) -> str:
        head = f"{self.source}: " if self.source else ""
        if len(self.problems) == 1:
            return head + "invalid input: " + self.problems[0].render()
        lines = [head + f"invalid input ({len(self.problems)} problems):"]
        lines += ["  - " + p.render() for p in self.problems]
        return "\n".join(lines)


def single(field: str, message: str, given: object = "", source: str | None = None) -> InputError:
    """An InputError with one problem."""
    return InputError([FieldProblem(field, _short(given), message)], source)


def _short(value: object, limit: int = 80) -> str:
    if value == "" or value is None and not isinstance(value, str):
        return "" if value == "" else "null"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def yaml_number(text: str) -> str | None:
    """How to write a number PyYAML (YAML 1.1) reads as a number, or None if ``text`` isn't one."""
    t = text.strip()
    try:
        float(t)
    except ValueError:
        return None
    match = re.fullmatch(r"([+-]?)(\d*)(?:\.(\d*))?[eE]([+-]?)(\d+)", t)
    if not match:
        return t
    sign, whole, frac, esign, exp = match.groups()
    return f"{sign}{whole or '0'}.{frac or '0'}e{esign or '+'}{exp}"


def string_number_message(text: str) -> str:
    """What to say about a number given as a string (quoted, or a YAML 1.1 exponent form)."""
    msg = "must be a number, not a string"
    fix = yaml_number(text)
    if fix is None:
        return msg
    if re.search(r"[eE]", text):
        return msg + (f"; YAML 1.1 (PyYAML) reads an exponent without a dot and a sign as a "
                      f"string (1e-3, 1.0e12): write {fix}")
    return msg + f"; write {fix} without quotes"


class FieldValueError(ValueError):
    """A check across fields (a spec's model validator) that names the field at fault, so that the
    reported problem points at it rather than at the spec as a whole."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
