# The package's names, each once: read by lazy_loader (__init__.py) and by type checkers, as in
# promptcanary/__init__.pyi.
from .baselines import (
    history as history,
    latest_baseline as latest_baseline,
    open_store as open_store,
)
from .cost import RunPlan as RunPlan, plan_run as plan_run
from .locations import baseline_dir as baseline_dir
from .measure import (
    measure as measure,
    merge_parts as merge_parts,
    unusable_reason as unusable_reason,
)
from .overrides import (
    Overrides as Overrides,
    parse_duration as parse_duration,
    parse_samples as parse_samples,
)
from .ports import (
    MissingBaseline as MissingBaseline,
    Ports as Ports,
    ProviderFactory as ProviderFactory,
    Ready as Ready,
    Retesting as Retesting,
)
from .pricing import litellm_price as litellm_price
from .provider import (
    load_run as load_run,
    make_provider as make_provider,
    resolve_model as resolve_model,
)
from .usecases.baseline_run import (
    BaselineRun as BaselineRun,
    BaselineRunRequest as BaselineRunRequest,
    baseline_run as baseline_run,
)
from .usecases.check import Check as Check, CheckRequest as CheckRequest, check as check
from .usecases.plan import PlanRequest as PlanRequest, plan as plan
from .verdict import (
    GatePolicy as GatePolicy,
    Verdict as Verdict,
    compare_with_settings as compare_with_settings,
    gate as gate,
    over_threshold as over_threshold,
)
