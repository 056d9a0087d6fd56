"""One test loads the offline MiniLM model (a few seconds); keep dense checks here, together."""

from __future__ import annotations

import os

from searchgym.tools.retrievers import Bm25sRetriever, DenseRetriever, HybridRetriever, page_document
from searchgym.tools.web_search import WebSearch


def test_dense_and_hybrid_rank_the_exact_page_first(world):
    docs = [page_document(p) for p in world.pages]
    dense = DenseRetriever(docs)
    assert dense.embeddings.shape == (len(docs), 384)
    norms = (dense.embeddings**2).sum(axis=1)
    assert abs(norms - 1).max() < 1e-4
    hits = dense.search("Tarsin University", 3)
    assert world.pages[hits[0][0]].id == "pg_tarsin"
    assert hits[0][1] >= hits[1][1] >= hits[2][1]

    hybrid = HybridRetriever(Bm25sRetriever(docs), dense)
    assert world.pages[hybrid.search("Glass Orchard", 3)[0][0]].id == "pg_glass"

    tool = WebSearch(world.pages, backend=dense)
    result = tool(query="Olbrecht", k=2)
    assert result.ok and result.text.startswith("[1] Olbrecht (")


def test_loading_the_sentence_model_leaves_pythons_global_random_state_alone():
    # before: importing sentence-transformers moved random's state, so random.seed(0) in user code
    # gave other draws once a dense env had been built (a fresh process: the first import moves it)
    import subprocess
    import sys

    code = ("import random; from searchgym.tools.retrievers import load_sentence_model; random.seed(0); "
            "before = random.getstate(); load_sentence_model(); print(random.getstate() == before)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.stdout.strip() == "True", done.stderr[-2000:]


def test_loading_the_sentence_model_leaves_offline_mode_and_progress_bars_alone():
    # before: the load set HF_HUB_OFFLINE=1 for the whole process (and its children), so a user's own
    # downloads failed after building a dense env, and each load printed "Loading weights: 100%|..."
    import subprocess
    import sys

    code = """
import os, socket
from transformers.utils import logging

def refuse(*args, **kwargs):
    raise OSError("no network in this test")

socket.socket.connect = refuse  # the model must load from its package, with no network at all
socket.getaddrinfo = refuse
user_hook = lambda factory, args, kwargs: factory(*args, **kwargs)
logging.set_tqdm_hook(user_hook)
from searchgym.tools.retrievers import load_sentence_model
model = load_sentence_model()
hook_back = logging.set_tqdm_hook(None) is user_hook
print(model.encode(["Olbrecht"]).shape, os.environ.get("HF_HUB_OFFLINE"), hook_back)
"""
    environment = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env=environment)
    assert done.stdout.strip() == "(1, 384) None True", done.stderr[-2000:]
    assert "Loading weights" not in done.stderr
