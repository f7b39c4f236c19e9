"""PromptCanary: catch silent behaviour drift in LLMs before it reaches production.

The usual names are importable from here (``from promptcanary import CanarySuite, compare``); they
are loaded on first use so that importing the package (and starting the CLI) stays fast. Each is
named once, in ``__init__.pyi``: lazy_loader reads it to load them, type checkers read it instead
of this file.
"""

import lazy_loader

# Here, not only in the stub: setuptools reads the version from this file without importing it.
__version__ = "0.1.0"

__getattr__, _, __all__ = lazy_loader.attach_stub(__name__, __file__)
__all__ = ["__version__", *__all__]


def __dir__() -> list[str]:  # lazy_loader's (_) leaves out __version__, which is set here
    return list(__all__)
