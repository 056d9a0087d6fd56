"""``register`` refuses at registration what ``make`` would refuse later, and never replaces an id silently.

Before: ``register("SearchQA-v0", ...)`` replaced the built-in id (a frozen suite then played another
env under its hash), and a misspelled keyword, a missing module or an unknown family each failed
only at the first ``make``.
"""

from __future__ import annotations

from contextlib import contextmanager

import gymnasium
import pytest

import searchgym
from searchgym.registry import ENV_IDS, register, spec

SEARCH = "searchgym.envs.search:SearchEnv"


@contextmanager
def registrations():
    """Registrations made inside are undone, Gymnasium's copies of them too."""
    before = set(ENV_IDS)
    with ENV_IDS.scoped():
        try:
            yield
        finally:
            for added in set(ENV_IDS) - before:
                gymnasium.envs.registration.registry.pop(f"searchgym/{added}", None)


def test_every_built_in_id_passes_the_checks_a_users_registration_gets():
    from searchgym.registry import check_registration

    for entry in searchgym.registered():
        check_registration(entry)


def test_a_taken_id_is_refused_unless_replace_is_given():
    original = spec("SearchQA-v0")
    with registrations():
        with pytest.raises(ValueError, match=r"^env id 'SearchQA-v0' is already registered \(to searchgym.envs.search:"
                                             r"SearchEnv\); choose another id, or pass replace=True to replace it$"):
            register("SearchQA-v0", SEARCH, action_mode="candidates")
        assert spec("SearchQA-v0") is original
        mine = register("Mine-v0", SEARCH, action_mode="candidates")
        assert register("Mine-v0", SEARCH, action_mode="candidates") is mine  # the same registration: no change
        with pytest.raises(ValueError, match="'Mine-v0' is already registered"):
            register("Mine-v0", SEARCH, action_mode="text")
        replaced = register("Mine-v0", SEARCH, replace=True, action_mode="text")
        assert spec("Mine-v0") is replaced and replaced.kwargs == {"action_mode": "text"}
        assert gymnasium.spec("searchgym/Mine-v0").kwargs == {"action_mode": "text"}
    assert "Mine-v0" not in ENV_IDS and spec("SearchQA-v0") is original


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"action_mod": "candidates"}, TypeError,
     r"^env id 'Bad-v0' got unknown keyword argument\(s\) 'action_mod'; accepted: config, action_mode, "),
    ({"families": ["nope"]}, ValueError,
     r"^env id 'Bad-v0': unknown task family 'nope'; registered: lookup, bridge, .*register a family before"),
    ({"action_mode": "cands"}, ValueError,
     r"^env id 'Bad-v0': action_mode must be one of \('text', 'candidates'\), got 'cands'$"),
    ({"max_steps": 0}, ValueError, r"^env id 'Bad-v0': max_steps must be an int in 1\.\.1000, got 0$"),
    ({"difficulty": "medium"}, ValueError, r"^env id 'Bad-v0': difficulty must be None or one of easy, hard"),
])
def test_a_setting_make_would_refuse_is_refused_at_registration(kwargs, error, message):
    with registrations(), pytest.raises(error, match=message):
        register("Bad-v0", SEARCH, **kwargs)
    assert "Bad-v0" not in ENV_IDS and "searchgym/Bad-v0" not in gymnasium.envs.registration.registry


def test_an_entry_point_that_does_not_load_is_refused_at_registration():
    with registrations():
        with pytest.raises(ValueError, match=r"^env id 'Bad-v0': its entry point mypkg.nope:Env does not load "
                                             r"\(No module named 'mypkg'\)$"):
            register("Bad-v0", "mypkg.nope:Env")
        with pytest.raises(ValueError, match=r"its entry point searchgym.envs.search:SearchEnvv does not load"):
            register("Bad-v0", "searchgym.envs.search:SearchEnvv")
        with pytest.raises(ValueError, match=r"^env id 'Bad-v0': unknown env id 'Nope-v0'; accepted: "):
            register("Bad-v0", "searchgym.wrappers.numeric:make_numeric", base_id="Nope-v0")
        with pytest.raises(ValueError, match=r"^an env id is a string of letters, digits and _ \. \+ - .*got 'Bad 5'$"):
            register("Bad 5", SEARCH)
    assert "Bad-v0" not in ENV_IDS


def test_a_users_variant_with_a_registered_family_is_made():
    with registrations():
        register("SearchQA-Lookup-Only-v0", SEARCH, action_mode="candidates", families=["lookup"])
        _, info = searchgym.make("SearchQA-Lookup-Only-v0", world_size="tiny").reset(seed=0)
        assert info["family"] == "lookup"


def test_a_wrapped_id_is_checked_as_the_env_it_wraps():
    with registrations(), pytest.raises(ValueError, match=r"^env id 'Bad-v0': max_steps must be an int in 1\.\.1000"):
        register("Bad-v0", "searchgym.wrappers.numeric:make_numeric", base_id="SearchQA-Candidates-v0", max_steps=0)
    assert "Bad-v0" not in ENV_IDS
