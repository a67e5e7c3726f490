"""Sizes (``8m``, ``512k``, ``1g``) have one reading, :func:`binlog_schema.output.sizes.parse_size`:
the command line's checked option values (``--split-size``, ``--max-event-size``) and the
Spark pipeline's settings (``split_size``, the ``binlog`` source's ``splitSize``) use it, so a
size the command line lets through is the size the pipeline cuts by."""

from __future__ import annotations

import argparse
import ast

import pytest

from binlog_schema.cli.values import byte_count, size
from binlog_schema.output.sizes import parse_size

from .test_house import PACKAGE, modules_of

SIZES = ["8m", "512k", "1g", "1.5m", "16MiB", "4096", " 2 k ", "100b", "8MB", "3kib"]
BAD = ["lots", "0", "0k", "-1", "1e3", "8t", "", "k", "1.5.m"]


@pytest.mark.parametrize("text, want", [
    ("8m", 8 << 20), ("512k", 512 << 10), ("1g", 1 << 30), ("1.5m", 3 << 19),
    ("16MiB", 16 << 20), ("4096", 4096), (" 2 k ", 2048), ("100b", 100), (1234, 1234)])
def test_sizes_read_as_bytes(text, want):
    assert parse_size(text) == want


@pytest.mark.parametrize("text", BAD)
def test_the_command_line_and_the_pipeline_agree(text):
    """A bad size: the same words from both (the command line's as a usage error)."""
    with pytest.raises(ValueError) as pipeline:
        parse_size(text)
    with pytest.raises(argparse.ArgumentTypeError) as cli:
        byte_count(text)
    assert str(cli.value) == str(pipeline.value) == \
        f"{text!r}: a size in bytes, or with k, m or g (8m, 512k, 1g)"
    with pytest.raises(argparse.ArgumentTypeError):
        size(text)


@pytest.mark.parametrize("text", SIZES)
def test_a_good_size_is_the_same_number_on_both_paths(text):
    assert byte_count(text) == parse_size(size(text)) == parse_size(text)


def test_the_pipeline_reads_sizes_with_the_one_parser():
    """No module but ``sizes.py`` defines a size reader, and every module that reads a size
    (``parse_size``) imports it from ``binlog_schema.output.sizes``."""
    wrong, users = [], set()
    for name, mod in modules_of(PACKAGE).items():
        for node in ast.walk(mod.tree):
            if isinstance(node, ast.FunctionDef) and node.name == "parse_size" and \
                    name != f"{PACKAGE}.output.sizes":
                wrong.append(f"{mod.where(node)}: a size reader of its own")
            if isinstance(node, ast.ImportFrom) and \
                    any(a.name == "parse_size" for a in node.names):
                if mod.resolve(node) != f"{PACKAGE}.output.sizes":
                    wrong.append(f"{mod.where(node)}: parse_size from {mod.resolve(node)}")
                users.add(name)
    assert not wrong, "\n".join(wrong)
    assert {f"{PACKAGE}.pipeline.jobs.decode", f"{PACKAGE}.pipeline.jobs.stats",
            f"{PACKAGE}.pipeline.sources.batch", f"{PACKAGE}.cli.values"} <= users
