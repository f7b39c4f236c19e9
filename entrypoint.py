"""Docker entrypoint of the PromptCanary GitHub Action (see action.yml)."""

from __future__ import annotations

import os
import sys

# LiteLLM must not fetch its price map from the network at import time.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

if __name__ == "__main__":
    from promptcanary.action.main import main

    sys.exit(main())
