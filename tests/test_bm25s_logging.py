"""Building a BM25 index prints nothing in a program that configures logging (bm25s sets its own
logger to DEBUG when imported, so every index printed "DEBUG - Building index from IDs")."""

from __future__ import annotations

import subprocess
import sys


def test_a_bm25_index_logs_nothing_under_basic_config_info():
    code = ("import logging; logging.basicConfig(level=logging.INFO)\n"
            "from searchgym.tools.retrievers import make_retriever\n"
            "make_retriever('bm25s', ['a page about rivers', 'a page about hills', 'a third page'])\n"
            "logging.getLogger('bm25s').setLevel(logging.DEBUG)\n"  # a user's own choice stays
            "make_retriever('bm25s', ['one more page', 'and another'])\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.count("Building index") == 1, done.stderr  # only after the user asked for DEBUG
