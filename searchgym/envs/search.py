"""SearchEnv, the single-agent Gymnasium env: its page (spaces, rewards, ids, example) is the class
docstring, so ``help(SearchEnv)`` shows it.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from searchgym.candidates import shared_generator
from searchgym.envs.config import CONFIG_KWARGS, EnvConfig, RenderModes, check_episode_seed, resolve_config
from searchgym.envs.info import ZEROED_RESET, episode_info
from searchgym.envs.observation_data import ObservationLog
from searchgym.envs.replay import EpisodeRecord, load_env, recorded
from searchgym.envs.session import SearchSession
from searchgym.envs.setup import env_setup
from searchgym.envs.spaces import episode_spaces
from searchgym.envs.tasks import reset_options
from searchgym.envs.terminal_view import TerminalView


class SearchEnv(gym.Env):
    """SearchEnv: one agent answers one question per episode with search tools (Gymnasium).

    Ids: ``SearchQA-v0`` (text, Hermes tool calls), ``SearchQA-Tags-v0`` (text, Search-R1 tags),
    ``SearchQA-Candidates-v0``, ``SearchQA-Candidates-Easy-v0`` (candidate actions); the
    ``SearchQA-Numeric*`` ids wrap the candidate ones (:mod:`searchgym.wrappers`).

    **Description**

    A seeded fictional world (people, companies, products, cities) holds the facts; the agent has
    ``web_search``, ``knowledge_base``, ``calculator``, ``current_time`` and
    ``ask_for_clarification``, and must answer a question (lookup, bridge, comparison, aggregate,
    temporal, ambiguous and list families) with as few steps as it can. A process judge marks each step that
    retrieves new gold evidence.

    **Action Space**

    - ``action_mode="text"``: ``Text(20000)`` (``searchgym.actions.MAX_ACTION_CHARS``: longer text
      outside ``<think>`` blocks is a format error; thinking is not counted, so an action with long
      thinking is read though it is longer than the space), a tool call in ``tool_format="hermes"``
      (``<tool_call>{"name": "web_search", "arguments": {"query": "..."}}</tool_call>``) or
      ``"tags"`` (``<search>...</search>``), or ``<answer>...</answer>`` to finish.
      ``step`` also takes the tool call structured, as frameworks dispatch it: a dict
      ``{"name": ..., "arguments": {...}}`` (arguments may be a JSON string) or an OpenAI
      ``tool_call`` object; ``{"name": "answer", "arguments": {"answer": "..."}}`` finishes
      (:func:`searchgym.actions.parse_tool_call`).
    - ``action_mode="candidates"``: ``Discrete(max_candidates)``, an index into ``obs["candidates"]``
      (the admissible actions built from what the agent has seen, shuffled by the env's generator).

    **Observation Space**

    - text mode: ``Text(max_obs_chars)``: the prompt after ``reset`` (question, tool schemas,
      accepted forms), then each step's result.
    - candidate mode: ``Dict(text=Text(max_obs_chars),
      candidates=Tuple(max_candidates x Text(max_candidate_chars)),
      action_mask=Box(0, 1, (max_candidates,), int8))``; the text is the transcript.

    The exact lines (``Question:``, ``Step k:``, the ``  <- `` provenance of a candidate) are in
    docs/OBSERVATIONS.md; :meth:`SearchEnv.observation_data` gives the same content as data.

    **Rewards**

    The answer score on the answering step (token F1 for names, numeric match by what the number
    is for numbers: :func:`searchgym.scoring.score_answer`, set F1 for lists; ``no_answer_score``
    at truncation), minus ``step_cost`` per step,
    ``invalid_cost`` per invalid action (a call the env refuses: a tool not allowed, arguments the tool
    refuses) and ``format_cost`` per unparseable one, which in candidate mode is also an index that is
    masked or out of range (an unparseable action is an observation saying what is accepted, and the
    episode goes on).
    ``info["reward_components"]`` shows each part; see :class:`searchgym.scoring.RewardConfig`.

    **Starting State**

    ``reset`` draws a task of the env's split (with its seeded generator), or takes
    ``options={"task_id": id}`` or ``options={"split": "train" | "dev" | "test"}`` (another key is an
    error that lists these). ``seed`` is a non-negative int, NumPy integers too (the same episode as
    the int), as in the group and team envs; anything else (a bool, a float, a negative int) is a
    ``ValueError`` that says so.

    **Episode End**

    ``terminated`` when the agent answers; ``truncated`` after ``max_steps`` steps.

    **Info**

    Built by :func:`searchgym.envs.info.episode_info` (the keys are listed there): task id and
    family, tool calls, gold evidence found, the judge's ``signals`` (``new_gold``, ``consistent``,
    ``contribution``), the answer and its score, ``reward_components``; in candidate mode
    ``action_mask`` and ``candidates``.

    **Arguments**

    ``SearchEnv(config=EnvConfig(...), **kwargs)``; the keywords are the fields of
    :class:`searchgym.envs.config.EnvConfig` (``action_mode``, ``tool_format``, ``world_seed``,
    ``world_size``, ``split``, ``families``, ``difficulty``, ``max_steps``, ``max_candidates``,
    ``max_obs_chars``, ``max_candidate_chars`` (300), ``backend``, ``reward``, ``world``, ``render_mode``,
    ``observation_data``) and override the config's.

    **Version History**

    - v0: the first version. Later without a new id (observations unchanged): ``config=EnvConfig``,
      ``observation_data()``, spaces owned by each env, pickling by replay (:mod:`searchgym.envs.replay`),
      structured tool calls as text-mode actions.

    **Example**

    >>> import searchgym
    >>> env = searchgym.make("SearchQA-Candidates-v0", world_size="tiny")
    >>> obs, info = env.reset(seed=0)
    >>> sorted(obs), env.action_space
    (['action_mask', 'candidates', 'text'], Discrete(48))
    >>> obs["text"].splitlines()[0]
    'Question: How many years ago was Saenebeir and Giglioty released?'
    >>> obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].argmax()))
    >>> terminated, sorted(info["reward_components"])
    (False, ['answer', 'format_cost', 'invalid_cost', 'step_cost', 'total'])
    """

    # render_fps: the pace of a text replay (Gymnasium's checker and recorders ask every env with render modes)
    metadata = {"render_modes": RenderModes(["ansi", "human"]), "render_fps": 4, "answer_rule": "single"}  # how it plays: envs.play_rules
    #: Keywords taken through ``**kwargs`` (the registry lists them in its errors).
    config_kwargs = CONFIG_KWARGS

    def __init__(self, config: EnvConfig | None = None, **kwargs: Any) -> None:
        self.env_config = resolve_config("SearchEnv", config, kwargs)
        setup = env_setup(self.env_config)
        self.config, self.world, self.tools, self.tasks = setup.config, setup.world, setup.tools, setup.tasks
        self.render_mode = self.env_config.render_mode
        self.observation_space, self.action_space = episode_spaces(self.config)
        self.session: SearchSession | None = None
        self.log: ObservationLog | None = None
        self.record: EpisodeRecord | None = None  # what pickling replays (see envs.replay)
        self.generator = shared_generator(self.world, self.config.max_candidates)  # shared by the world's envs

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        options = reset_options(options)
        chosen = self.tasks.check(options)  # a bad option is an error before the env changes
        if seed is not None:  # a NumPy integer is the int it is (Gymnasium refused it, though sizes take NumPy
            seed = check_episode_seed(seed)  # ints, a sweep's np.arange); a bool is no seed (True was played as 1)
        super().reset(seed=seed)
        self.record = EpisodeRecord.start(self.np_random, options, self._np_random_seed)
        task = self.tasks.pick(self.np_random, chosen)
        self.session = SearchSession(self.world, self.tools, task, self.config, self.np_random,
                                     generator=self.generator)
        self.log = ObservationLog(self.session)
        prompt = self.session.prompt() if self.config.action_mode == "text" else ""  # candidates: unused
        if self.render_mode == "human":
            self.render()
        return self._observation(prompt), self._info(None)

    def step(self, action):
        if self.session is None:
            raise RuntimeError("call reset() before step()")
        outcome = self.session.apply(action)
        self.log.record(outcome)
        self.record.actions.append(recorded(action))
        if self.render_mode == "human":
            self.render()
        return (self._observation(outcome.text), float(outcome.reward["total"]), outcome.terminated,
                outcome.truncated, self._info(outcome))

    def _observation(self, text: str):
        if self.config.action_mode == "text":
            return text
        self.session.refresh_candidates()
        return self.session.candidate_observation()

    def _info(self, outcome) -> dict[str, Any]:
        data = self.log.data() if self.env_config.observation_data else None
        return episode_info(self.session, outcome, self.config.action_mode == "candidates", ZEROED_RESET,
                            observation_data=data)

    def observation_data(self) -> dict[str, Any]:
        """The structured data behind the current observation (see :mod:`searchgym.envs.observation_data`)."""
        if self.log is None:
            raise RuntimeError("call reset() before observation_data()")
        return self.log.data()

    def __reduce__(self):
        # State that replay does not rebuild: the spec gymnasium.make set (a copy had none, so
        # gymnasium.make(copy.spec) failed), the spaces, whose generators a seeded sampler relies on
        # (a copy's action_space.sample() drew other actions than the original's), and what "human"
        # mode has printed (a copy printed the whole episode again at its next step)
        state = {"spec": self.spec, "observation_space": self.observation_space, "action_space": self.action_space,
                 **{k: v for k, v in self.__dict__.items() if k == "_view"}}
        return load_env, (type(self), {"config": self.env_config}, self.record), state

    def _set_generator(self, generator: np.random.Generator, seed: int | None) -> None:
        self._np_random, self._np_random_seed = generator, seed

    def render(self) -> str | None:
        """The episode as text ("ansi"); printed, returning None ("human": also after each reset and step)."""
        if self.render_mode is None or self.session is None:
            return None
        if self.render_mode == "human":
            self.__dict__.setdefault("_view", TerminalView()).show(self.session.render())
            return None
        return self.session.render()

    @property
    def task(self):
        return self.session.task if self.session else None


def legal_actions(info: dict) -> np.ndarray:
    """Indices of admissible candidates from an info dict (candidate mode)."""
    return np.flatnonzero(info["action_mask"])
