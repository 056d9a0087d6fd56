"""Reading a round's lines at once (numbers read only when the round could carry one) equals
reading each line alone, for calculator, clock and fact rounds built on purpose."""

from __future__ import annotations

from searchgym.action_types import Action
from searchgym.candidates import Observed
from searchgym.envs.blackboard import result_lines
from searchgym.envs.team import TeamSearchEnv


def rounds_of(env, session, calls):
    observed = Observed(session.observed.question_names)
    for action in calls:
        result, invalid = session.execute(action)
        assert not invalid, result.text
        yield observed.record(env.world, action, result)


def test_lines_of_calculator_clock_and_fact_rounds_read_at_once_as_one_by_one():
    env = TeamSearchEnv(roles="generalists", team_size=2, action_mode="candidates", world_size="small")
    env.reset(seed=1)
    session = env.sessions["generalist_0"]
    subject = env.world.entities[next(iter(env.world.facts.values())).subject_id].display_name
    calls = [Action.call("calculator", expression="1110 + 20"), Action.call("current_time"),
             Action.call("knowledge_base", entity=subject), Action.call("web_search", query=subject)]
    checked = 0
    for rnd in rounds_of(env, session, calls):
        lines = result_lines(rnd) + [f"It is {env.world.now.year}.", "1130", "nothing here"]
        assert env.reader.read_lines(lines, rnd) == [env.reader.read(line, rnd) for line in lines]
        checked += sum(bool(e.evidence_ids or e.calculator_value) for e in env.reader.read_lines(lines, rnd))
    assert checked >= 3  # the calculation, the clock and a fact were carried
