"""The data PromptCanary produces and stores: prompts, responses, probe results, runs, baselines,
drift reports.

Everything is a pydantic v2 model so a run or a report round-trips through JSON exactly
(``Model.model_validate_json(m.model_dump_json()) == m``). Derived numbers (scores, severity,
usage) are properties, computed from the stored data, so a stored file can never disagree with
itself. The classes live in private modules — run data (``run``, ``usage``), behaviour changes
(``behaviour``) and drift data (``drift``) — and are re-exported here, their documented home.

They are loaded on first use (``__init__.pyi`` names them): a command builds the pydantic
models of the module it uses, not all of them (``run`` needs no drift report; ``baselines list``
reads no model at all). Building a model class costs about a millisecond of CPU (pydantic
generates its validator), every command start pays for the ones it imports.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
