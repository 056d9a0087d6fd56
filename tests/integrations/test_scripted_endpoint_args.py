"""ScriptedEndpoint, the stand-in model of docs/INTEGRATIONS.md, takes its splits as documented."""

from __future__ import annotations

import json
import urllib.request

import pytest

import searchgym
from searchgym.endpoint.scripted_endpoint import ScriptedEndpoint

SUITE = "searchqa-text-v2"


def test_one_split_name_is_one_split_and_bad_splits_name_what_is_accepted() -> None:
    """Before: splits="dev" was read letter by letter ("unknown split 'd'; accepted: train, dev,
    test"), and None or 5 raised "'NoneType' object is not iterable". (splits=() is kept: an endpoint
    that knows no task, answering "<answer>unknown</answer>".)"""
    record = searchgym.tasks(SUITE, "dev")[0]
    with ScriptedEndpoint(SUITE, "oracle", splits="dev", limit=1) as endpoint:
        body = json.dumps({"model": "oracle", "messages": record.messages}).encode()
        request = urllib.request.Request(endpoint.base_url + "/chat/completions", body,
                                         {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            reply = json.load(response)["choices"][0]["message"]["content"]
    assert "<tool_call>" in reply or "<answer>" in reply
    for splits in [["dev", "valid"], "valid", 5, None]:
        with pytest.raises(ValueError, match=r"splits must be a sequence of split names, each one of "
                                             r"train, dev, test"):
            ScriptedEndpoint(SUITE, "oracle", splits=splits, limit=1)
