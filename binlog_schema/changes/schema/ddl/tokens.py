"""The lexer of the DDL grammar: :class:`Tok` and :func:`tokenize` (identifiers, quoted
identifiers, strings with their escapes and introducers, numbers, hex and bit literals,
punctuation; comments skipped, the content of executable comments read as code), and
:class:`DDLError`, the error every part of the grammar raises.
"""

from __future__ import annotations

import re


class DDLError(ValueError):
    """A statement this parser cannot read; names the position."""


# ================================================================================ tokens


class Tok:
    """One token: ``kind`` ident | qident | string | number | hex | bits | punct | end;
    ``text``: identifiers and keywords as written, the value of strings; ``charset``: a
    string's introducer (_latin1'...'); ``word``: an identifier's upper case ("" for the
    other kinds)."""

    __slots__ = ("kind", "text", "pos", "charset", "word")

    def __init__(self, kind: str, text: str, pos: int, charset: str | None = None):
        self.kind, self.text, self.pos, self.charset = kind, text, pos, charset
        self.word = text.upper() if kind == "ident" else ""

    def is_kw(self, *words) -> bool:
        return self.word in words and self.kind == "ident"

    def __repr__(self):
        return f"Tok({self.kind!r}, {self.text!r}, {self.pos})"


_ESCAPES = {"0": "\0", "'": "'", '"': '"', "b": "\b", "n": "\n", "r": "\r", "t": "\t",
            "Z": "\x1a", "\\": "\\", "%": "\\%", "_": "\\_"}
_WORD = re.compile(r"[0-9A-Za-z_$\u0080-\uffff]+")
_NUMBER = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_EXEC_COMMENT = re.compile(r"/\*M?!\d*")


_SPACE = re.compile(r"\s+")
# the characters that start a plain identifier and nothing else (not x'..', b'..', N'..',
# _charset'..', a number or a comment), and punctuation that is never more than itself
_IDENT_START = frozenset("ACDEFGHIJKLMOPQRSTUVWYZacdefghijklmopqrstuvwyz")
_PLAIN_PUNCT = frozenset("(),;=")


def tokenize(text: str) -> list:
    out = []
    i, n = 0, len(text)
    exec_depth = 0
    while i < n:
        ch = text[i]
        if ch in _IDENT_START:   # (the common tokens first, as the rules below read them)
            m = _WORD.match(text, i)
            out.append(Tok("ident", m.group(0), i))
            i = m.end()
            continue
        if ch in _PLAIN_PUNCT:
            out.append(Tok("punct", ch, i))
            i += 1
            continue
        if ch.isspace():
            i = _SPACE.match(text, i).end()
            continue
        if text.startswith("/*", i):
            m = _EXEC_COMMENT.match(text, i)
            if m:  # an executable comment: its content is code
                exec_depth += 1
                i = m.end()
                continue
            end = text.find("*/", i + 2)
            if end < 0:
                raise DDLError(f"unterminated comment at {i}")
            i = end + 2
            continue
        if exec_depth and text.startswith("*/", i):
            exec_depth -= 1
            i += 2
            continue
        if ch == "#" or (text.startswith("--", i) and (i + 2 >= n or text[i + 2].isspace())):
            end = text.find("\n", i)
            i = n if end < 0 else end + 1
            continue
        if ch == "`":
            j, buf = i + 1, []
            while True:
                k = text.find("`", j)
                if k < 0:
                    raise DDLError(f"unterminated `identifier` at {i}")
                buf.append(text[j:k])
                if text.startswith("``", k):
                    buf.append("`")
                    j = k + 2
                    continue
                break
            out.append(Tok("qident", "".join(buf), i))
            i = k + 1
            continue
        if ch in "'\"":
            value, i2 = _string(text, i)
            if out and out[-1].kind == "string" and not out[-1].charset:
                out[-1].text += value     # 'a' 'b' is 'ab'
            else:
                out.append(Tok("string", value, i))
            i = i2
            continue
        if ch in "xXbB" and i + 1 < n and text[i + 1] == "'":
            end = text.find("'", i + 2)
            if end < 0:
                raise DDLError(f"unterminated {ch}'...' literal at {i}")
            out.append(Tok("hex" if ch in "xX" else "bits", text[i + 2:end], i))
            i = end + 1
            continue
        if text.startswith(("0x", "0b"), i) and i + 2 < n and _WORD.match(text, i):
            m = _WORD.match(text, i)
            word = m.group(0)
            kind = "hex" if word[1] == "x" else "bits"
            if re.fullmatch(r"0x[0-9A-Fa-f]+|0b[01]+", word):
                out.append(Tok(kind, word[2:], i))
                i = m.end()
                continue
        m = _NUMBER.match(text, i)
        if m and (not _WORD.match(text, i) or _WORD.match(text, i).end() <= m.end()):
            out.append(Tok("number", m.group(0), i))
            i = m.end()
            continue
        m = _WORD.match(text, i)
        if m:
            word = m.group(0)
            if word.startswith("_") and m.end() < n and text[m.end()] == "'" and \
                    len(word) > 1:   # _latin1'...'
                value, i2 = _string(text, m.end())
                out.append(Tok("string", value, i, charset=word[1:].lower()))
                i = i2
                continue
            if word.upper() == "N" and m.end() < n and text[m.end()] == "'":
                value, i2 = _string(text, m.end())
                out.append(Tok("string", value, i, charset="utf8mb3"))
                i = i2
                continue
            out.append(Tok("ident", word, i))
            i = m.end()
            continue
        out.append(Tok("punct", ch, i))
        i += 1
    out.append(Tok("end", "", n))
    return out


def _string(text, i):
    quote = text[i]
    j, buf = i + 1, []
    n = len(text)
    while j < n:
        ch = text[j]
        if ch == "\\" and j + 1 < n:
            buf.append(_ESCAPES.get(text[j + 1], text[j + 1]))
            j += 2
            continue
        if ch == quote:
            if j + 1 < n and text[j + 1] == quote:
                buf.append(quote)
                j += 2
                continue
            return "".join(buf), j + 1
        buf.append(ch)
        j += 1
    raise DDLError(f"unterminated string at {i}")
