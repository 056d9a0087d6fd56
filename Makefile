# The two commands of the README: `make main` (set up, then the quick baseline comparison) and
# `make test` (set up, then the test suite, which includes the wheel check: build the wheel,
# install it into a fresh venv, run the CLI outside the source tree; `make wheel-check` alone). Set-up is idempotent and installs
# torch 2.13.0 first when no torch is present, from pip's configured index (the project's own requirement is a range).
# On PyPI that wheel is the multi-GB CUDA build; `make main TORCH_INDEX=https://download.pytorch.org/whl/cpu`
# takes the CPU build instead.
TORCH_INDEX ?=
PY ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
OUT ?= runs/quick
# The main comparison: the supervised base (sft: the hash policy, with the features that rank a
# comparison's options and say where a calculation's operands come from, imitating the reader), then every
# outcome- and MARL method started from that base (init=sft: one base per seed, shared by its runs),
# beside the base scored by its argmax (sft_greedy: what sharpening alone gives), the reader, random
# and the privileged oracle, on three seeds. ippo, mt_ppo, gigpo and
# info_gain are one --methods away; they do not fit the 15-minute budget on 2 cores, nor does the
# attn policy (benchmarks/bench_policy.py measures its cost per agent-step against hash's).
MAIN_METHODS ?= sft,sft_greedy=sft[decoding=greedy],cw_grpo,grpo,dr_grpo,mappo,coma,reader,random,oracle
MAIN_POLICY ?= hash
MAIN_BUDGET ?= 10000
MAIN_OPTIONS ?= --option init=sft --option lr=0.001 --option update_epochs=4 --option loss.entropy_coef=0 \
	--option 'policy_kwargs={"comparison_facts": true, "operand_sources": true}'

.PHONY: setup main test wheel-check browser bench clean

setup: $(VENV)/.installed

# What the main job needs (training and its report); the test set-up adds every extra the tests
# exercise (the LLM frameworks among them), which the main job does not need to wait for.
$(VENV)/.installed-main: pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -c "import torch" 2>/dev/null || $(BIN)/pip install -q torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(BIN)/pip install -q -e ".[train,report]"
	touch $@

$(VENV)/.installed: $(VENV)/.installed-main
	$(BIN)/pip install -q -e ".[test]"
	touch $@

main: $(VENV)/.installed-main
	$(BIN)/searchgym compare --suite quick-v2 --methods '$(MAIN_METHODS)' --seeds 3 --budget $(MAIN_BUDGET) --workers 2 --device auto --policy $(MAIN_POLICY) $(MAIN_OPTIONS) --out $(OUT)

# Headless Chromium for the leaderboard page test (Debian's package; needs root and apt).
browser:
	@command -v chromium >/dev/null 2>&1 || { command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || \
		echo "chromium not installed: the leaderboard browser test will be skipped outside CI"; }

test: setup browser
	$(BIN)/python -m pytest

wheel-check: setup
	$(BIN)/python -m pytest tests/test_packaging.py

bench: setup
	$(BIN)/python benchmarks/bench_env.py

clean:
	rm -rf $(VENV) runs .pytest_cache
