"""searchgym in TRL's GRPOTrainer(environment_factory=...): the env's public methods are the
suite's tools and `answer`, a tool call the trainer parses reaches searchgym, the reward TRL
trains on is the env's own return, and GRPO runs on CPU with a tiny random Qwen2 model and the
offline chat tokenizer."""

from __future__ import annotations

import inspect
import json
import re

import pytest

import searchgym
from searchgym.suites import Suite

trl = pytest.importorskip("trl", reason="TRL is an optional extra: pip install 'searchgym[trl]'")
torch = pytest.importorskip("torch")

from searchgym.integrations import trl as sg_trl

TINY = Suite("tiny-text-trl", 1, "SearchQA-v0", {"max_steps": 6, "tool_format": "hermes"}, world_size="tiny",
             dev_size=4, test_size=2)
TOOLS = ["answer", "ask_for_clarification", "calculator", "current_time", "knowledge_base", "web_search"]


@pytest.fixture(scope="module")
def env_class():
    return sg_trl.environment_factory(TINY)


@pytest.fixture(scope="module")
def dataset():
    return sg_trl.make_dataset(TINY, "dev")


def test_public_methods_are_the_tools_and_answer(env_class):
    public = sorted(n for n, _ in inspect.getmembers(env_class, predicate=inspect.isfunction) if not n.startswith("_"))
    assert public == sorted([*TOOLS, "reset"])  # reset is TRL's; every other public method is offered as a tool
    from transformers.utils import get_json_schema

    ours = {t["function"]["name"]: t["function"] for t in searchgym.tasks(TINY, "dev")[0].tools}
    for name in TOOLS:
        schema = get_json_schema(getattr(env_class(), name))["function"]  # what TRL renders into the prompt
        assert schema["description"] == ours[name]["description"]
        assert set(schema["parameters"]["properties"]) == set(ours[name]["parameters"]["properties"])
        assert sorted(schema["parameters"].get("required", [])) == sorted(ours[name]["parameters"]["required"])


def test_a_rollout_dispatches_to_searchgym_and_scores_the_envs_return(env_class, dataset):
    row = dataset[0]
    env = env_class()
    assert env.reset(**row) is None  # the row's prompt already holds the question
    result = env.web_search(query=row["question"], k=2)
    assert result.startswith("[1] ") and "(https://" in result  # search hits, without the wrapper
    wrong = env.calculator(expression="2 +")  # a bad call gets the env's own error, and costs what it costs
    answer = env.answer(answer=row["answers"][0])
    assert env.done and env.info["success"] and env.current_time().startswith("The episode is over")

    direct = searchgym.make_task_env(TINY, "dev", row["task_id"])
    direct.reset(seed=0)
    steps = [direct.step({"name": "web_search", "arguments": {"query": row["question"], "k": 2}}),
             direct.step({"name": "calculator", "arguments": {"expression": "2 +"}}),
             direct.step({"name": "answer", "arguments": {"answer": row["answers"][0]}})]
    # the env's text, less the <tool_response> wrapper that the chat template adds around a tool message
    assert [f"<tool_response>\n{r}\n</tool_response>" for r in (result, wrong)] + [answer] == [s[0] for s in steps]
    completion = [{"role": "assistant", "content": "", "tool_calls": [{"type": "function"}]}]
    assert sg_trl.episode_reward([completion], [env]) == [pytest.approx(sum(s[1] for s in steps))]


def test_a_text_answer_reaches_the_env_and_bad_rows_are_refused(env_class, dataset):
    row, env = dataset[1], env_class()
    env.reset(**row)
    completion = [{"role": "assistant", "content": f"<answer>{row['answers'][0]}</answer>"}]
    (reward,) = sg_trl.episode_reward([completion], [env])
    direct = searchgym.make_task_env(TINY, "dev", row["task_id"])
    direct.reset(seed=0)
    assert env.info["success"] and env.info["answer"] == row["answers"][0]
    assert reward == pytest.approx(direct.step(completion[0]["content"])[1])
    with pytest.raises(ValueError, match="reset needs the row's task_id"):
        env.reset(prompt=row["prompt"])
    with pytest.raises(ValueError, match="split 'test' is not one to train on; accepted: train, dev"):
        env.reset(task_id=row["task_id"], split="test")
    with pytest.raises(ValueError, match="split 'test' is not one to train on"):
        sg_trl.make_dataset(TINY, "test")
    with pytest.raises(ValueError, match="multi-agent"):
        sg_trl.environment_factory("team-text-v2")
    with pytest.raises(ValueError, match="not a text suite"):
        sg_trl.environment_factory("searchqa-v2")


def tiny_qwen2(tokenizer):
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=8192,
                         pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
                         bos_token_id=tokenizer.eos_token_id)
    return Qwen2ForCausalLM(config)


def grpo(tmp_path, tokenizer, model, dataset, env_class, reward, max_completion_length):
    from trl import GRPOConfig, GRPOTrainer

    args = GRPOConfig(output_dir=str(tmp_path), per_device_train_batch_size=2, num_generations=2, max_steps=2,
                      max_completion_length=max_completion_length, logging_steps=1, report_to="none", use_cpu=True,
                      save_strategy="no", learning_rate=1e-3, seed=0)
    return GRPOTrainer(model=model, reward_funcs=reward, args=args, train_dataset=dataset, processing_class=tokenizer,
                       environment_factory=env_class)


def scripted_generate(tokenizer, answers):
    """model.generate that writes an agent's turns: search the question, then answer it (right
    on some tasks, wrong on others), then stop; the trainer parses and dispatches the calls."""

    def generate(input_ids, attention_mask=None, **_):
        rows = []
        for ids in input_ids.tolist():
            text = tokenizer.decode(ids)
            question = re.search(r"Question: (.*?)<\|im_end\|>", text).group(1).strip()
            turn = text.count("<|im_start|>assistant\n") - 1  # the turns written so far
            call = [{"name": "web_search", "arguments": {"query": question, "k": 1}},
                    {"name": "answer", "arguments": {"answer": answers[question]}}, None][min(turn, 2)]
            reply = f"<tool_call>\n{json.dumps(call)}\n</tool_call>" if call else "Done."
            rows.append(tokenizer.encode(reply + "<|im_end|>"))
        width = max(map(len, rows))
        padded = [r + [tokenizer.pad_token_id] * (width - len(r)) for r in rows]
        return torch.cat([input_ids, torch.tensor(padded, dtype=input_ids.dtype)], dim=1)

    return generate


def test_grpo_trainer_plays_tool_calls_through_searchgym_and_trains_on_the_envs_reward(tmp_path, env_class, dataset):
    tokenizer = sg_trl.trl_tokenizer()
    answers = {r["question"]: (r["answers"][0] if i % 2 == 0 else "nobody") for i, r in enumerate(dataset)}
    model = tiny_qwen2(tokenizer)
    model.generate = scripted_generate(tokenizer, answers)
    seen = []

    def recorded_reward(completions, environments, **kwargs):
        rewards = sg_trl.episode_reward(completions, environments, **kwargs)
        seen.extend((env.task_id, env.info.get("answer"), reward) for env, reward in zip(environments, rewards))
        return rewards

    trainer = grpo(tmp_path, tokenizer, model, dataset, env_class, recorded_reward, 1024)
    trainer.train()
    assert trainer.state.global_step == 2 and len(seen) == 4
    logged = [entry for entry in trainer.state.log_history if "reward" in entry]
    assert [e["tools/call_frequency"] for e in logged] == [2.0, 2.0]  # each rollout: the search and the answer
    questions = {r["task_id"]: r["question"] for r in dataset}
    for task_id, answered, reward in seen:  # the same calls on a fresh env give the same return
        question = questions[task_id]
        direct = searchgym.make_task_env(TINY, "dev", task_id)
        direct.reset(seed=0)
        expected = direct.step({"name": "web_search", "arguments": {"query": question, "k": 1}})[1]
        expected += direct.step({"name": "answer", "arguments": {"answer": answers[question]}})[1]
        assert answered == answers[question] and reward == pytest.approx(expected)
    means = [sum(r for _, _, r in seen[i:i + 2]) / 2 for i in (0, 2)]
    assert [e["reward"] for e in logged] == pytest.approx(means)


def test_grpo_trainer_runs_two_steps_with_a_tiny_random_qwen2(tmp_path, env_class, dataset):
    tokenizer = sg_trl.trl_tokenizer()
    trainer = grpo(tmp_path, tokenizer, tiny_qwen2(tokenizer), dataset, env_class, sg_trl.episode_reward, 24)
    trainer.train()
    logged = [e for e in trainer.state.log_history if "reward" in e]
    assert trainer.state.global_step == 2 and len(logged) == 2
    assert all(e["completions/mean_length"] > 0 and -1.0 <= e["reward"] <= 1.0 for e in logged)


def test_a_row_whose_task_is_not_in_its_split_is_refused(env_class, dataset):
    """Before: reset(task_id=<a test task>, split="dev") played the hidden test task (the env's
    task_id option picks from any split), and a dev task with the default split "train" played too."""
    env = env_class()
    test_id = searchgym.tasks(TINY, "test")[0].task_id
    with pytest.raises(ValueError, match=r"is not in the dev split .*accepted: one of its 4 task ids"):
        env.reset(task_id=test_id, split="dev")
    with pytest.raises(ValueError, match="is not in the train split"):
        env.reset(task_id=dataset[0]["task_id"])  # a dev row without its split
    env.reset(**dataset[0])
    assert env.task_id == dataset[0]["task_id"] and not env.done


@pytest.mark.parametrize("seed", [-1, "a", 1.5, True])
def test_a_bad_seed_is_refused_when_the_factory_is_made(seed):
    """Before: environment_factory(suite, seed=-1) made the class and every rollout's first reset
    failed in Gymnasium ("Seed must be greater or equal to zero"); True was played as seed 1."""
    with pytest.raises(ValueError, match=r"environment_factory's seed must be an int in 0..9223372036854775807, got"):
        sg_trl.environment_factory(TINY, seed=seed)


@pytest.mark.parametrize("first", [{"type": "text", "text": "<answer>"}, "<answer>"])
def test_a_text_answer_in_content_parts_is_scored(env_class, dataset, first):
    """Before: an <answer> in a list of content parts ([{"type": "text", "text": ...}]) was dropped:
    the reward was 0.0 (no step) instead of the env's score of that answer. A bare string part is its
    text, as the endpoint reads it (it was dropped here)."""
    row = dataset[0]
    answer = [first, {"type": "text", "text": row["answers"][0] + "</answer>"}]
    env = env_class()
    env.reset(**row)
    [reward] = sg_trl.episode_reward([[{"role": "assistant", "content": answer}]], [env])
    direct = searchgym.make_task_env(TINY, "dev", row["task_id"])
    direct.reset(seed=0)
    assert env.done and reward == direct.step(f"<answer>{row['answers'][0]}</answer>")[1] > 0.5


@pytest.mark.parametrize(("suite", "error", "said"), [
    ("searchqa-v2", ValueError, "suite 'searchqa-v2' is not a text suite"),
    ("team-text-v2", ValueError, "suite 'team-text-v2' (TeamSearch-v0) is multi-agent"),
    ("TeamSearch-v0", ValueError, "suite 'TeamSearch-v0' (TeamSearch-v0) is multi-agent"),
    (["searchqa-text-v2"], TypeError, "suite must be a suite id (str) or a Suite, such as 'searchqa-text-v2'; got list"),
])
def test_a_suite_trl_cannot_play_is_refused_by_the_dataset_and_the_factory_alike(suite, error, said):
    """Before: make_dataset built rows for candidate and team suites (the trainer failed on them later), and
    environment_factory(["..."]) was "unhashable type: 'list'"."""
    with pytest.raises(error, match=re.escape(said)):
        sg_trl.make_dataset(suite, "dev")
    if not isinstance(suite, str) or suite != "TeamSearch-v0":  # the factory takes suites only
        with pytest.raises(error, match=re.escape(said)):
            sg_trl.environment_factory(suite)
    assert len(sg_trl.make_dataset("SearchQA-v0", "dev")) > 0  # a single-agent text env id still makes rows


def test_episode_reward_names_environments_that_are_not_the_factorys():
    with pytest.raises(TypeError, match="environments must be the envs environment_factory's class made"):
        sg_trl.episode_reward([[{"role": "assistant", "content": "x"}]], [3])


def test_the_env_pickles_and_copies_mid_episode(env_class, dataset):
    """Before: pickle.dumps(env) raised "Can't pickle <class '...SearchGym_tiny_text_trl'>: attribute
    lookup failed" (the class is made at run time); a copy now plays on from the same step."""
    import copy
    import pickle

    env = env_class()
    env.reset(**dataset[1])
    env.web_search(query=dataset[1]["question"])
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert type(clone) is env_class and (clone.task_id, clone.reward) == (env.task_id, env.reward)
        assert clone.answer(answer="unknown") == env_class.answer(copy.deepcopy(env), answer="unknown")
        assert clone.done and not env.done


def test_episode_reward_scores_a_rollout_the_same_each_time_it_is_asked(env_class, dataset):
    """Before: each call stepped a last turn that was no answer again, charging its format cost again
    (-0.06, then -0.12, -0.18); and fewer environments than completions was "zip() argument 2 is
    longer than argument 1"."""
    env = env_class()
    env.reset(**dataset[0])
    completions = [[{"role": "assistant", "content": "I think it is Paris."}]]
    first = sg_trl.episode_reward(completions, [env])
    assert first == sg_trl.episode_reward(completions, [env]) and first[0] < 0
    env.reset(**dataset[0])
    assert sg_trl.episode_reward(completions, [env]) == first  # a new episode is scored afresh
    with pytest.raises(ValueError, match="one environment per completion; got 2 completions and 1 environments"):
        sg_trl.episode_reward(completions * 2, [env])



def test_a_row_of_another_suite_is_refused_not_played_as_the_suites_task_of_that_id():
    """Before: make_dataset("SearchQA-v0") rows reset a searchqa-text-v2 env to the suite's task of the
    same id, another question than the row's prompt (13 of 99 dev rows; the others were refused only as
    not in the split)."""
    env_rows = sg_trl.make_dataset("SearchQA-v0", "dev")
    row = next(r for r in env_rows if r["task_id"] == "lookup-00012")
    assert row["suite"] == "SearchQA-v0"
    env = sg_trl.environment_factory("searchqa-text-v2")()
    with pytest.raises(ValueError, match=r"^the row is a task of 'SearchQA-v0' and this env plays 'searchqa-text-v2'"):
        env.reset(**row)
    suite_row = sg_trl.make_dataset("searchqa-text-v2", "dev")[0]
    assert suite_row["suite"] == "searchqa-text-v2"
    env.reset(**suite_row)
    assert env.task_id == suite_row["task_id"]
