"""Language-model backends: settings, the client, the answer cache and call accounting.

memcli works offline by default (rules extractor, template writer). With a model
configured it can read updates the rules cannot and write observation prose, but a model
never decides structure: which episodes cluster and which facts count stay with the
algorithms in :mod:`memcli.analysis`. Everything a model returns is validated first.

Any OpenAI-compatible endpoint works (OpenAI, Ollama, vLLM, llama.cpp's server,
llama-cpp-python, LM Studio). Settings come from command options, then the environment,
then ``[llm]`` in ``$MEMCLI_HOME/config.toml``, then defaults (see :func:`load_settings`).

Three modules: :mod:`~memcli.llm.settings` (what to call and how), :mod:`~memcli.llm.usage`
(what it cost) and :mod:`~memcli.llm.client` (the calls, the cache, the retries). This
package re-exports their public names. Nothing imports openai or instructor at module
level: importing the CLI stays cheap and the offline path never needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memcli.llm.settings import (
    EXTRACTORS,
    MODES,
    OPENAI_URL,
    SYSTEM_ROLES,
    WRITERS,
    LLMSettings,
    config_path,
    default_mode,
    load_settings,
)
from memcli.llm.usage import Usage

if TYPE_CHECKING:
    from memcli.llm.client import LLM, Answer, Ask


def __getattr__(name: str) -> Any:
    # The client (threads, hashing, the cache) loads on first use: the CLI reads only
    # settings at start-up.
    if name in ("LLM", "Answer", "Ask"):
        from memcli.llm import client

        return getattr(client, name)
    raise AttributeError(f"module 'memcli.llm' has no attribute {name!r}")


__all__ = [
    "EXTRACTORS",
    "LLM",
    "MODES",
    "OPENAI_URL",
    "SYSTEM_ROLES",
    "WRITERS",
    "Answer",
    "Ask",
    "LLMSettings",
    "Usage",
    "config_path",
    "default_mode",
    "load_settings",
]
