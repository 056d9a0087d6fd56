"""The reader baseline: it decides from the observation dict alone, deterministically, and solves
every question family from what an agent sees."""

from __future__ import annotations

import json

import numpy as np
import pytest
from searchgym.baselines.reader import ReaderActor, ReaderPolicy
from searchgym.baselines.reader_observation import read, sentence_facts
from searchgym.baselines.reader_plan import Path, Plan, parse_question

from searchgym.suites import Suite, make_env, register_suite, tasks
from searchgym.world import shared_world

TEAM_HEADER = ("You are generalist_1 in a team of 2: generalist_0 (web_search, knowledge_base, calculator, "
               "current_time, ask_for_clarification; submits the answer); generalist_1 (web_search, knowledge_base, "
               "calculator, current_time, ask_for_clarification; submits the answer). Only you see your tool "
               "results; share what teammates need with <post>a note</post> (everyone reads the blackboard), or <wait/>.")

QA = register_suite(Suite("test-reader-qa-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 12}, world_size="tiny",
                          dev_size=4, test_size=28, description="tests: the reader, single agent, every family"))
GROUP = register_suite(Suite("test-reader-group-v0", 0, "GroupSearch-Candidates-v0",
                             {"group_size": 2, "max_steps": 12}, world_size="tiny", dev_size=4, test_size=14,
                             description="tests: the reader, a group of two"))
GENERALISTS = register_suite(Suite("test-reader-team-v0", 0, "TeamSearch-Generalists-Candidates-v0",
                                   {"team_size": 2, "max_rounds": 8}, world_size="tiny", dev_size=4, test_size=14,
                                   description="tests: the reader, two generalists"))
ROLES = register_suite(Suite("test-reader-roles-v0", 0, "TeamSearch-Candidates-v0", {"max_rounds": 12},
                             world_size="tiny", dev_size=4, test_size=14,
                             description="tests: the reader, lead, searcher and analyst"))


def observation(question: str, steps: list[tuple[str, str]], candidates: list[str], header: str = "",
                notes: list[str] | None = None, size: int = 16) -> dict:
    """A candidate-mode observation as the env writes it (docs/OBSERVATIONS.md)."""
    lines = [header] if header else []
    lines.append(f"Question: {question}")
    if notes is not None:
        lines += ["Blackboard:" if notes else "Blackboard: (empty)", *notes]
    for k, (action, result) in enumerate(steps, start=1):
        lines += [f"Step {k}: {action}", result]
    padded = tuple(candidates) + ("",) * (size - len(candidates))
    mask = np.array([1 if c else 0 for c in padded], dtype=np.int8)
    return {"text": "\n".join(lines) + "\n", "candidates": padded, "action_mask": mask}


def chosen(obs: dict) -> str:
    return obs["candidates"][ReaderPolicy().choose(obs)].split("  <- ")[0]


# ------------------------------------------------------------------------------ the question parser
def test_questions_read_back_into_plans():
    bridge = "What is the birthplace of the chief executive of the company that makes Fouthal 510?"
    assert parse_question(bridge) == Plan("value", (Path("Fouthal 510", ("made_by", "ceo")),), "born_in")
    assert parse_question("What is the population of the capital of Vexa?") == \
        Plan("value", (Path("Vexa", ("capital",)),), "population", True)
    comparison = ("Which company has more employees: the company that makes Liojy-860 or the company that makes "
                  "Peqax 200?")
    assert parse_question(comparison) == Plan("compare", (Path("Liojy-860", ("made_by",)), Path("Peqax 200", ("made_by",))),
                                              "employees", True, smaller_wins=False)
    assert parse_question("Who was born earlier: the founder of A Corp or the founder of B Labs?").smaller_wins
    assert parse_question("By how much does the page count of Beyond Mox exceed that of Songs of Lu?") == \
        Plan("difference", (Path("Beyond Mox"), Path("Songs of Lu")), "pages", True)
    # a film named "X and Y": the names the question lists settle where the pair splits
    pair = "What is the combined box office in millions of dollars of Kik and Zor and Night over Lu?"
    assert parse_question(pair, ("Kik and Zor", "Night over Lu")).paths == (Path("Kik and Zor"), Path("Night over Lu"))
    assert parse_question("How many years ago was the award received by Mara Quell established?") == \
        Plan("years_since", (Path("Mara Quell", ("award_received",)),), "established_year", True)
    assert parse_question("Which films did Mara Quell direct?") == Plan("list", (Path("Mara Quell"),), "directed_by")
    assert parse_question("Why is the sky blue?") is None


def test_every_generated_question_parses_into_its_gold_chain():
    """Each task's plan names the predicates of its gold evidence (checked here only: the reader never sees it)."""
    world = shared_world(0, "tiny")
    for task in world.tasks:
        plan = parse_question(task.question)
        assert plan is not None, task.question
        predicates = [h.predicate for h in task.evidence if h.fact_id not in ("clock", "clarification")]
        if task.family in ("bridge", "lookup", "temporal", "ambiguous"):
            assert [*plan.paths[0].relations, plan.target] == predicates, task.question
        elif task.family == "comparison":
            assert [plan.paths[0].relations[0], plan.target] == predicates[:2], task.question
        elif task.family == "aggregate":
            assert plan.target == predicates[0] and {p.start for p in plan.paths} == {h.entity for h in task.evidence}
        else:
            assert plan.kind == "list" and set(predicates) == {plan.target}


# ------------------------------------------------------------------------------ reading what is seen
def test_page_sentences_and_outdated_figures():
    assert sentence_facts("Mox Vey was born in the year 1962.") == [("Mox Vey", "birth_year", "1962")]
    assert sentence_facts("Mox Vey was born in Lurk.") == [("Mox Vey", "born_in", "Lurk")]
    assert sentence_facts("Lurk has a population of 823,000.") == [("Lurk", "population", "823000")]
    assert sentence_facts("In 2030, Lurk had a population of 5,000.") == []  # outdated: not a fact of now
    assert sentence_facts("Critics compared Lurk with Vey in a widely shared essay.") == []


def test_facts_come_from_kb_lines_notes_and_answer_provenance():
    obs = observation("Where is Qor Labs headquartered?",
                      [('knowledge_base(entity="Qor Labs")', "Qor Labs (company)\n- revenue: 30 (as of 2034)")],
                      ['answer("Lurk")  <- Qor Labs | headquartered in | a city | via blackboard note by generalist_0',
                       'answer("12")  <- Qor Labs | employees in 2019 | a number | "In 2019, ..." | via web_search',
                       "wait()  <- let teammates work this round"],
                      header=TEAM_HEADER, notes=["[round 1] generalist_0: Mox Vey (person): born in: Lurk"])
    reading = read(obs)
    assert reading.me == "generalist_1" and reading.can_answer and reading.teammates == ("generalist_0",)
    assert reading.facts[("Qor Labs", "revenue")] == "30"
    assert reading.facts[("Mox Vey", "born_in")] == "Lurk"
    assert reading.facts[("Qor Labs", "headquartered_in")] == "Lurk"
    assert ("Qor Labs", "employees") not in reading.facts  # the 2019 figure is outdated


# ------------------------------------------------------------------------------ hand-built decisions
BRIDGE = "Who is the founder of the company that makes Vexa 10?"


def test_bridge_follows_the_chain_and_falls_back_to_the_web():
    first = observation(BRIDGE, [], ['web_search(query="Vexa 10")  <- name from the question',
                                     'knowledge_base(entity="Vexa 10")  <- name from the question'])
    assert chosen(first) == 'knowledge_base(entity="Vexa 10")'
    kb = ('knowledge_base(entity="Vexa 10")', "Vexa 10 (product)\n- made by: Qor Labs")
    second = observation(BRIDGE, [kb], ['answer("Qor Labs")  <- Vexa 10 | made by | a company | via knowledge_base',
                                        'web_search(query="Qor Labs")  <- name from the latest result | made by of Vexa 10',
                                        'knowledge_base(entity="Qor Labs")  <- name from the latest result | made by of Vexa 10'])
    assert chosen(second) == 'knowledge_base(entity="Qor Labs")'
    empty = ('knowledge_base(entity="Qor Labs")',
             "Qor Labs (company)\nThe knowledge base has no facts about this entity; try web_search.")
    third = observation(BRIDGE, [kb, empty], list(second["candidates"][:3]))
    assert chosen(third) == 'web_search(query="Qor Labs")'
    web = ('web_search(query="Qor Labs")', ("[1] Qor Labs (https://wiki.searchgym.example/company/qor-labs)\n"
           "Qor Labs is a company. The founder of Qor Labs is Mara Quell. Qor Labs employs 40 people."))
    last = observation(BRIDGE, [kb, empty, web],
                       ['answer("40")  <- Qor Labs | employees | a number | via web_search',
                        'answer("Mara Quell")  <- Qor Labs | founded by | a person | via web_search',
                        'knowledge_base(entity="Mara Quell")  <- name from the latest result'])
    assert chosen(last) == 'answer("Mara Quell")'


def test_a_name_dropped_from_the_candidates_is_shown_again_by_its_look_up():
    kb = ('knowledge_base(entity="Vexa 10")', "Vexa 10 (product)\n- made by: Qor Labs")
    obs = observation(BRIDGE, [kb], ['knowledge_base(entity="Vexa 10")  <- name from the question',
                                     'web_search(query="Vexa 10")  <- name from the question',
                                     'knowledge_base(entity="Lurk")  <- name from the earlier result'])
    assert chosen(obs) == 'web_search(query="Vexa 10")'  # a look-up not made yet, which names "Qor Labs" too
    searched = ('web_search(query="Vexa 10")', ("[1] Vexa 10 (https://wiki.searchgym.example/product/vexa-10)\n"
                "Vexa 10 is a product."))
    again = observation(BRIDGE, [kb, searched], list(obs["candidates"][:3]))
    assert chosen(again) == 'knowledge_base(entity="Vexa 10")'  # the one whose result named it


def test_comparison_answers_the_winner_by_the_schema_order():
    question = "Which company was founded earlier: the company that makes Vexa 10 or the company that makes Lo 2?"
    facts = [('knowledge_base(entity="Vexa 10")', "Vexa 10 (product)\n- made by: Qor Labs"),
             ('knowledge_base(entity="Lo 2")', "Lo 2 (product)\n- made by: Bex Corp"),
             ('knowledge_base(entity="Qor Labs")', "Qor Labs (company)\n- founded year: 1990")]
    candidates = ['answer("Qor Labs")  <- Vexa 10 | made by | a company | via knowledge_base',
                  'answer("Bex Corp")  <- Lo 2 | made by | a company | via knowledge_base',
                  'knowledge_base(entity="Bex Corp")  <- name from the earlier result | made by of Lo 2']
    assert chosen(observation(question, facts, candidates)) == 'knowledge_base(entity="Bex Corp")'
    bex = ('knowledge_base(entity="Bex Corp")', "Bex Corp (company)\n- founded year: 1971")
    assert chosen(observation(question, facts + [bex], candidates)) == 'answer("Bex Corp")'  # earlier wins


def test_aggregate_calculates_then_answers_the_result():
    question = "By how much does the price in dollars of Vexa 10 exceed that of Lo 2?"
    steps = [('knowledge_base(entity="Vexa 10")', "Vexa 10 (product)\n- price: 87 (as of 2034)"),
             ('web_search(query="Lo 2")', ("[1] Lo 2 (https://wiki.searchgym.example/product/lo-2)\n"
              "Lo 2 is a product. In 2025, Lo 2 sold for 63 dollars. Lo 2 costs 101 dollars."))]
    calcs = ['calculator(expression="101 - 63")  <- difference of price',
             'calculator(expression="101 - 87")  <- difference of price',
             'calculator(expression="87 + 101")  <- sum of price']
    assert chosen(observation(question, steps, calcs)) == 'calculator(expression="101 - 87")'
    done = steps + [('calculator(expression="101 - 87")', "14")]
    answers = calcs + ['answer("14")  <- calculator: 101 - 87', 'answer("101")  <- Lo 2 | price | a number | via web_search']
    assert chosen(observation(question, done, answers)) == 'answer("14")'


def test_temporal_reads_the_clock_then_subtracts():
    question = "How many years ago was Qor Labs founded?"
    steps = [('knowledge_base(entity="Qor Labs")', "Qor Labs (company)\n- founded year: 1990")]
    candidates = ["current_time()  <- the world's clock", 'answer("1990")  <- Qor Labs | founded year | a number | via knowledge_base']
    assert chosen(observation(question, steps, candidates)) == "current_time()"
    clock = ("current_time()", "The current date is 2035-03-01 (Thursday). The current year is 2035.")
    with_clock = candidates + ['calculator(expression="2035 - 1990")  <- current year minus founded year']
    assert chosen(observation(question, steps + [clock], with_clock)) == 'calculator(expression="2035 - 1990")'


def test_lookup_of_a_namesake_asks_which_one_is_meant():
    question = "Where was Mara Quell born?"
    steps = [('knowledge_base(entity="Mara Quell")', ("2 entities are named 'Mara Quell':\n- Mara Quell (painter) (person)\n"
              "- Mara Quell (author) (person)\nCall knowledge_base again with the full name of the one you mean."))]
    candidates = ['ask_for_clarification(question="Which Mara Quell do you mean?")  <- ask the user',
                  'knowledge_base(entity="Mara Quell")  <- name from the question',
                  'knowledge_base(entity="Mara Quell (painter)")  <- name from the latest result']
    assert chosen(observation(question, steps, candidates)) == 'ask_for_clarification(question="Which Mara Quell do you mean?")'
    meant = steps + [('ask_for_clarification(question="Which Mara Quell do you mean?")', "I mean Mara Quell (painter).")]
    assert chosen(observation(question, meant, candidates)) == 'knowledge_base(entity="Mara Quell (painter)")'
    # on the web a descriptor gives the namesake away: the fact read under the bare name is not trusted
    web = [('web_search(query="Mara Quell")', ("[1] Mara Quell (painter) (https://wiki.searchgym.example/person/x)\n"
            "Mara Quell (painter) was born in Lurk."))]
    answers = candidates + ['answer("Lurk")  <- Mara Quell (painter) | born in | a city | via web_search']
    assert chosen(observation(question, web, answers)).startswith("ask_for_clarification(")
    assert chosen(observation(question, web + meant[1:], answers)) == 'answer("Lurk")'


def test_a_member_who_cannot_answer_posts_what_the_plan_uses():
    header = TEAM_HEADER.replace("You are generalist_1", "You are searcher").replace(
        "generalist_1 (web_search, knowledge_base, calculator, current_time, ask_for_clarification; submits the answer)",
        "searcher (web_search, knowledge_base)")
    kb = ('knowledge_base(entity="Vexa 10")', "Vexa 10 (product)\n- made by: Qor Labs\n- price: 87")
    obs = observation(BRIDGE, [kb], ['post("Vexa 10 (product): price: 87")  <- share a line of your knowledge_base result',
                                     'post("Vexa 10 (product): made by: Qor Labs")  <- share a line of your knowledge_base result',
                                     'knowledge_base(entity="Qor Labs")  <- name from the latest result',
                                     "wait()  <- let teammates work this round"], header=header, notes=[])
    assert not read(obs).can_answer
    assert chosen(obs) == 'post("Vexa 10 (product): made by: Qor Labs")'


def test_bad_input_gets_a_clear_error():
    with pytest.raises(ValueError, match="lists no admissible candidate"):
        ReaderPolicy().choose({"text": "Question: Who?\n", "candidates": ("",), "action_mask": np.zeros(1)})
    with pytest.raises(ValueError, match="lookup_order .* is not accepted: give one or more of knowledge_base"):
        ReaderPolicy(lookup_order=("google",))


# ------------------------------------------------------------------------------ whole episodes
def _play(suite: Suite, split: str = "test") -> tuple[list[bool], list[list]]:
    """Every task of the split, the env stepped here and the policy given observations only."""
    policy, env = ReaderPolicy(), make_env(suite, split)
    results, trails = [], []
    for index, task in enumerate(tasks(suite, split)):
        obs, info = env.reset(seed=index, options={"task_id": task.id})
        trail = []
        if "candidates" in obs:  # single agent
            done = False
            while not done:
                action = policy.choose(obs)
                trail.append(action)
                obs, _, terminated, truncated, info = env.step(action)
                done = terminated or truncated
            results.append(bool(info["success"]))
        else:
            while env.agents:
                actions = ReaderActor(policy).act(None, obs, None)  # no env: only what each member sees
                trail.append(actions)
                obs, _, _, _, info = env.step(actions)
            results.append(bool(next(iter(info.values()))["success"]))
        trails.append(trail)
    env.close()
    return results, trails


@pytest.mark.parametrize("suite", [QA, GROUP, GENERALISTS, ROLES], ids=lambda s: s.id)
def test_it_plays_every_env_to_the_end_from_observations_alone(suite):
    results, trails = _play(suite)
    assert len(results) == len(tasks(suite, "test")) and all(trails)
    assert np.mean(results) >= 0.85, results  # random scores near 0 on these


def test_same_observation_same_choice():
    first, trails = _play(QA)
    again, trails_again = _play(QA)
    assert first == again and trails == trails_again


def test_the_method_runs_through_the_harness(tmp_path, capsys):
    from searchgym.cli import main

    code = main(["compare", "--suite", QA.id, "--methods", "reader,oracle", "--budget", "0", "--out", str(tmp_path)])
    assert code in (0, None)
    results = (tmp_path / "results.md").read_text()
    assert "| reader | 1 |" in results and "| oracle (privileged) | 1 |" in results
    assert "oracle (privileged) reads the task's gold evidence chain" in results
    config = json.loads((tmp_path / "runs" / "reader" / "seed0" / "config.json").read_text())
    assert config["trains"] is False and config["privileged"] is False and config["training_budget"] == 0


def test_evaluate_names_the_reader_as_an_agent(tmp_path, capsys):
    from searchgym.cli import main

    out = tmp_path / "ev"
    assert main(["evaluate", "--suite", QA.id, "--agent", "reader", "--agent-option", "lookup_order=web_search",
                 "--out", str(out), "--no-progress"]) == 0
    assert f"on {QA.id} (test split, {len(tasks(QA, 'test'))} tasks)" in capsys.readouterr().out
    config = json.loads((out / "config.json").read_text())
    assert config["options"]["agent"] == "reader" and config["options"]["agent_options"] == {"lookup_order": "web_search"}
    steps = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(steps) == len(tasks(QA, "test"))


def test_choose_refuses_a_text_observation_naming_the_text_reader():
    """Before: ``ReaderPolicy().choose("a text observation")`` was ``AttributeError: 'str' object has no
    attribute 'get'``."""
    import pytest

    from searchgym.baselines.reader import ReaderPolicy

    with pytest.raises(TypeError, match="candidate-mode observation.*got str.*ReaderTextAgent"):
        ReaderPolicy().choose("Question: Where was Mara Quell born?")
