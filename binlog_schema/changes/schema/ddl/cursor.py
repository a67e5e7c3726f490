"""The DDL grammar's cursor over the tokens of a text: looking at, accepting and expecting
tokens, names, numbers and strings, skipping parentheses or the rest of a statement, and
errors that name the line and column. The parsers of the grammar are its subclasses.
"""

from __future__ import annotations

from .tokens import DDLError, Tok, tokenize


class Cursor:
    """The tokens of ``text`` and the position in them; ``history`` selects the grammar (see
    :class:`~.tables.Parser`)."""

    def __init__(self, text: str, history: bool = False):
        self.text = text
        self.toks = tokenize(text)
        self.i = 0
        self.history = history

    # -------------------------------------------------------------- basics
    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def peek(self, k=1) -> Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self) -> Tok:
        t = self.toks[self.i]
        if t.kind != "end":
            self.i += 1
        return t

    def error(self, msg, tok=None) -> DDLError:
        tok = tok or self.tok
        line = self.text.count("\n", 0, tok.pos) + 1
        col = tok.pos - (self.text.rfind("\n", 0, tok.pos) + 1) + 1
        near = self.text[tok.pos:tok.pos + 30].split("\n")[0]
        return DDLError(f"line {line}, column {col}: {msg} (near {near!r})")

    def accept_kw(self, *words) -> bool:
        t = self.toks[self.i]
        if t.word in words and t.kind == "ident":
            self.i += 1
            return True
        return False

    def expect_kw(self, *words) -> str:
        if not self.tok.is_kw(*words):
            raise self.error(f"expected {' or '.join(words)}")
        return self.next().text.upper()

    def accept(self, punct) -> bool:
        if self.tok.kind == "punct" and self.tok.text == punct:
            self.i += 1
            return True
        return False

    def expect(self, punct):
        if not self.accept(punct):
            raise self.error(f"expected {punct!r}")

    def ident(self, what="a name") -> str:
        t = self.tok
        if t.kind in ("ident", "qident"):
            self.i += 1
            return t.text
        if t.kind == "string":  # 'name' is accepted for some names
            self.i += 1
            return t.text
        raise self.error(f"expected {what}")

    def qualified(self):
        first = self.ident("a table name")
        if self.accept("."):
            return first, self.ident("a table name")
        return None, first

    def number(self) -> int:
        t = self.tok
        if t.kind != "number" or not t.text.isdigit():
            raise self.error("expected a whole number")
        self.i += 1
        return int(t.text)

    def string(self) -> str:
        t = self.tok
        if t.kind != "string":
            raise self.error("expected a quoted string")
        self.i += 1
        return t.text

    def skip_parens(self):
        """Skip a balanced ( ... ) and return its source text."""
        start = self.tok
        self.expect("(")
        depth = 1
        while depth:
            t = self.next()
            if t.kind == "end":
                raise self.error("unbalanced parentheses", start)
            if t.kind == "punct":
                depth += {"(": 1, ")": -1}.get(t.text, 0)
        end = self.toks[self.i - 1]
        return self.text[start.pos + 1:end.pos]

    def skip_to_end_of_statement(self):
        depth = 0
        while self.tok.kind != "end":
            t = self.tok
            if t.kind == "punct":
                if t.text == "(":
                    depth += 1
                elif t.text == ")":
                    depth -= 1
                elif t.text == ";" and depth <= 0:
                    return
            self.i += 1
