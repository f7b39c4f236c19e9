"""The use cases of PromptCanary, each one function that reads top to bottom (see
:mod:`promptcanary.pipeline`): :func:`~.check.check`, :func:`~.baseline_run.baseline_run` and
:func:`~.plan.plan`. Import them from :mod:`promptcanary.pipeline`."""
