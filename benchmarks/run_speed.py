"""Run speed and rate-limit behaviour of CanarySuite.run, against the loopback test server.

Usage::

    python benchmarks/run_speed.py [--prompts 200] [--concurrency 16] [--latency 0.1] [--repeat 3]
                                   [--model openai/fake-model] [--in-process]
                                   [--load-requests 2000] [--load-concurrency 64]
                                   [--memory-requests 10000] [--skip-load] [--tls]

0. Load (issues 17 and 23): ``--load-requests`` requests at ``--load-concurrency`` against the
   asyncio loopback server (tests/fakes/llm_async_server.py, its own process, ``--latency``), side
   by side in the same run: a raw aiohttp client sending the same JSON bodies; a bare
   ``asyncio.gather`` of ``litellm.acompletion`` on ``openai/`` (the floor of LiteLLM's default
   route); CanarySuite.run through LiteLLMProvider (one probe) with the fast route off
   (``PROMPTCANARY_LITELLM_ROUTE=openai``) and on (providers/litellm_transport.py); and with
   ``--workers`` forked workers. Each client runs in a fresh process (so its peak memory is
   its own) after a warm-up round of one request per slot (imports, connections); printed: wall
   time, ratio to the raw client, the latency bound (n / c x latency), CPU per request (all
   threads) and its ratio to the bare gather's, peak RSS, and the connections the server saw.
   Then CanarySuite.run alone with ``--memory-requests`` for the peak memory of a large run.
   Targets printed (issue 23): CPU per request <= 0.6x the bare gather; one process <= 2x the raw
   client's wall time; ``--workers 2`` <= 1.5x.

   ``--tls``: the same against the provider's own endpoint (issue 29) — no ``api_base`` anywhere;
   the server speaks HTTPS with a private CA (tests/fakes/tls.py) and every client is pointed at
   it as a user points LiteLLM and the OpenAI SDK at another default base: ``OPENAI_BASE_URL``
   and ``SSL_CERT_FILE``. The bare gather is then the SDK route as it reaches api.openai.com.

1. Speed: ``--prompts`` prompts at ``--concurrency`` through LiteLLMProvider and CanarySuite.run
   (probes included), against the fake OpenAI-compatible server answering in ``--latency``
   seconds; compared with a bare ``asyncio.gather`` of ``litellm.acompletion`` under an
   ``asyncio.Semaphore`` of the same size (the floor LiteLLM itself allows). Both send the same
   model name, keyword arguments and LiteLLM settings (the bare gather on LiteLLM's default
   ``openai/`` route; the run on the cheaper route, providers/litellm_transport.py). Prints the
   wall time of each (best and median of ``--repeat``), their ratio, the client's CPU time per
   request and its ratio (issue 23's target: <= 0.6) (all threads: on a
   small machine the client is CPU-bound, so this explains the wall time), the load average
   around the measurement, and the peak RSS of the process.

   ``--model`` picks the model name sent to the server (it answers any). The default,
   ``openai/fake-model``, is unknown to LiteLLM's price map: cost is None, and LiteLLM spends
   more CPU per call looking it up than for a priced name such as ``openai/gpt-4o-mini``.
2. Rate limit: 100 prompts against a server limited to 20 requests/s (429 + retry-after-ms beyond
   it): wall time, errors (target 0), retries, achieved rate as % of the limit (target >= 85 %).

By default the server runs in a separate process so that it does not share the GIL with the
client being measured (``--in-process`` runs it in a thread instead). Import time of LiteLLM is
excluded (one warm-up round first): the figures are in-run times.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from promptcanary.core.models import CanaryPrompt  # noqa: E402
from promptcanary.core.probes.base import build_probe  # noqa: E402
from promptcanary.core.suite import CanarySuite  # noqa: E402
from promptcanary.providers.litellm import LiteLLMProvider  # noqa: E402
from tests.fakes.tls import PrivateCA, make_private_ca  # noqa: E402

MODEL = "openai/fake-model"
T = TypeVar("T")


@contextmanager
def async_server(
    latency: float, tls: PrivateCA | None = None
) -> Iterator[tuple[str, dict[str, int]]]:
    """The asyncio loopback server in its own process (HTTPS with ``tls``); yields its URL and,
    once stopped, its counters (connections opened, requests answered)."""
    cmd = [sys.executable, "-m", "tests.fakes.llm_async_server", "--latency", str(latency)]
    if tls is not None:
        cmd += ["--tls-cert", str(tls.cert_file), "--tls-key", str(tls.key_file)]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    stats: dict[str, int] = {}
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip(), stats
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
        lines = [line for line in err.splitlines() if line.startswith("{")]
        if lines:
            stats.update(json.loads(lines[-1]))


def load_client(kind: str, url: str, n: int, concurrency: int, model: str) -> dict[str, float]:
    """One client in this (fresh) process: warm up, then ``n`` requests; its measurements.

    ``url`` empty: the provider's own endpoint, as ``OPENAI_BASE_URL`` names it (``--tls``)."""
    workers = 0
    base = url or None
    if kind == "raw":
        import ssl

        import aiohttp

        target = url or os.environ["OPENAI_BASE_URL"]
        ca = os.environ.get("SSL_CERT_FILE")
        tls = ssl.create_default_context(cafile=ca) if ca else True

        async def go(count: int) -> None:
            semaphore = asyncio.Semaphore(concurrency)
            connector = aiohttp.TCPConnector(limit=concurrency, ssl=tls)
            async with aiohttp.ClientSession(connector=connector) as session:

                async def one(i: int) -> None:
                    body = {
                        "model": model.split("/", 1)[-1],
                        "messages": [{"role": "user", "content": prompt_text(i)}],
                        "temperature": 0.0,
                        "max_tokens": 1024,
                        "seed": 42,
                    }
                    headers = {"Authorization": "Bearer sk-test"}
                    async with (
                        semaphore,
                        session.post(
                            f"{target}/chat/completions", json=body, headers=headers
                        ) as response,
                    ):
                        await response.json()

                await asyncio.gather(*(one(i) for i in range(count)))

        asyncio.run(go(concurrency))
        cpu, wall = time.process_time(), time.perf_counter()
        asyncio.run(go(n))
        errors = 0
    elif kind == "bare":
        # The floor LiteLLM's openai/ route allows: litellm.acompletion under a semaphore, in a
        # process prepared as LiteLLMProvider prepares its own (gc.freeze() after the import).
        from promptcanary.providers.litellm import _import_litellm

        _import_litellm(model)
        asyncio.run(bare_gather(base, concurrency, concurrency, model))
        cpu, wall = time.process_time(), time.perf_counter()
        asyncio.run(bare_gather(base, n, concurrency, model))
        errors = 0
    else:
        if kind.endswith("-openai"):  # the fast route off (providers/litellm_transport.py)
            os.environ["PROMPTCANARY_LITELLM_ROUTE"] = "openai"
            kind = kind.removesuffix("-openai")
        from promptcanary.core.run.runner import RunOptions, run_suite

        where = {"api_base": base} if base else {}
        provider = LiteLLMProvider(model, api_key="sk-test", **where)
        make_suite(concurrency).run(provider, concurrency=concurrency, show_progress=False)
        suite = make_suite(n)
        workers = int(kind.removeprefix("workers")) if kind.startswith("workers") else 1
        cpu, wall = time.process_time(), time.perf_counter()
        options = RunOptions(concurrency=concurrency, show_progress=False, workers=workers)
        result = run_suite(suite, provider, options)
        errors = len(result.errors)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    child_cpu = children.ru_utime + children.ru_stime  # forked workers, once they are joined
    workers_rss = children.ru_maxrss / 1024.0 * (workers if workers > 1 else 0)
    return {
        "wall": time.perf_counter() - wall,
        "cpu_ms": (time.process_time() - cpu + child_cpu) * 1000 / n,
        # With workers: the parent's peak plus each worker's (an upper bound: forked workers
        # share the parent's pages until they write to them).
        "rss_mb": peak_rss_mb() + workers_rss,
        "errors": errors,
    }


def run_client(
    kind: str, url: str, n: int, concurrency: int, model: str, env: dict[str, str] | None = None
) -> dict[str, float]:
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            "--client",
            kind,
            "--url",
            url,
            "--load-requests",
            str(n),
            "--load-concurrency",
            str(concurrency),
            "--model",
            model,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


Row = tuple[str, dict[str, float], dict[str, int]]


def measure_load(n: int, c: int, latency: float, model: str, workers: int, tls: bool) -> list[Row]:
    """Each client in a fresh process against a fresh server: raw aiohttp, the bare gather on
    ``openai/``, CanarySuite.run with the fast route off and on (and with ``workers``).
    ``tls``: at the provider's own endpoint (HTTPS with a private CA, no api_base)."""
    clients = [
        ("raw aiohttp", "raw"),
        ("bare acompletion", "bare"),
        ("run, openai/ route", "ours-openai"),
        ("CanarySuite.run", "ours"),
    ]
    if workers > 1:
        clients.append((f"{workers} workers", f"workers{workers}"))
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        ca = make_private_ca(Path(folder)) if tls else None
        for name, kind in clients:
            with async_server(latency, ca) as (url, stats):
                env = None
                if ca is not None:  # the provider's own endpoint: no api_base anywhere
                    env = {"OPENAI_BASE_URL": url, "SSL_CERT_FILE": str(ca.ca_file)}
                    url = ""
                measured = run_client(kind, url, n, c, model, env)
            rows.append((name, measured, stats))
    return rows


def load(args: argparse.Namespace) -> None:
    n, c = args.load_requests, args.load_concurrency
    load_before = load_average()
    rows = measure_load(n, c, args.latency, args.model, args.workers, args.tls)
    big: dict[str, float] | None = None
    if args.memory_requests:
        with async_server(args.latency) as (url, _):
            big = run_client("ours", url, args.memory_requests, c, args.model)
    raw, bare = rows[0][1], rows[1][1]
    print(
        f"== load: {n} requests @ concurrency {c}, asyncio server latency "
        f"{args.latency * 1000:.0f} ms, model {args.model}"
        f"{', at the provider endpoint (HTTPS stand-in)' if args.tls else ''} =="
    )
    print(f"latency bound (n / c x latency)  {n / c * args.latency:6.2f} s")
    print("client               wall    x raw   CPU/request  x bare  peak RSS  connections  errors")
    for name, m, stats in rows:
        print(
            f"{name:19s} {m['wall']:5.2f} s  {m['wall'] / raw['wall']:5.2f}x  "
            f"{m['cpu_ms']:6.2f} ms  {m['cpu_ms'] / bare['cpu_ms']:5.2f}x  {m['rss_mb']:6.0f} MB"
            f"  {stats.get('connections', 0):6d}       {m['errors']:.0f}"
        )
    if big is not None:
        print(
            f"CanarySuite.run, {args.memory_requests} requests: {big['wall']:.2f} s, "
            f"{big['cpu_ms']:.2f} ms CPU/request, peak RSS {big['rss_mb']:.0f} MB"
        )
    print("(connections include the warm-up round's, opened on its own event loop; with workers,")
    print(" CPU includes theirs and peak RSS is the parent's plus each worker's, an upper bound)")
    ours = rows[3][1]
    verdicts = [
        ("CPU/request <= 0.6x bare acompletion", ours["cpu_ms"] / bare["cpu_ms"], 0.6),
        ("one process wall <= 2x raw", ours["wall"] / raw["wall"], 2.0),
    ]
    if args.workers > 1:
        verdicts.append(
            (f"{args.workers} workers wall <= 1.5x raw", rows[4][1]["wall"] / raw["wall"], 1.5)
        )
    for label, value, target in verdicts:
        print(f"target {label:38s} {value:5.2f}x  {'met' if value <= target else 'MISSED'}")
    print(f"load average before / after      {load_before} / {load_average()}")


def prompt_text(i: int) -> str:
    return f"Canary prompt number {i}: answer OK."


@contextmanager
def fake_server(
    *, latency: float, rate_limit: float | None = None, in_process: bool = False
) -> Iterator[str]:
    """Start the loopback server; yield its base URL."""
    if in_process:
        from tests.fakes.llm_server import FakeLLMServer

        with FakeLLMServer(latency_s=latency, rate_limit_per_s=rate_limit) as server:
            yield server.base_url
        return
    cmd = [sys.executable, "-m", "tests.fakes.llm_server", "--latency", str(latency)]
    if rate_limit is not None:
        cmd += ["--rate-limit", str(rate_limit)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def make_suite(n: int) -> CanarySuite:
    prompts = [CanaryPrompt(text=prompt_text(i)) for i in range(n)]
    probes = [build_probe("keyword_presence", {"required_keywords": ["OK"]})]
    return CanarySuite(name="bench", prompts=prompts, probes=probes)


async def bare_gather(base_url: str | None, n: int, concurrency: int, model: str = MODEL) -> float:
    """The floor: n litellm.acompletion calls under a semaphore, nothing else.

    Same keyword arguments and LiteLLM settings as LiteLLMProvider.request_kwargs() sends (no
    ``api_base`` when ``base_url`` is None: the endpoint LiteLLM resolves).
    """
    import litellm

    litellm.suppress_debug_info = True  # as LiteLLMProvider sets it
    semaphore = asyncio.Semaphore(concurrency)

    async def one(i: int) -> object:
        async with semaphore:
            return await litellm.acompletion(
                model=model,
                messages=[{"role": "user", "content": f"Canary prompt number {i}: answer OK."}],
                **({"api_base": base_url} if base_url else {}),
                api_key="sk-test",
                temperature=0.0,
                max_tokens=1024,
                seed=42,
                num_retries=0,
                max_retries=0,
            )

    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(n)))
    return time.perf_counter() - started


def timed_run(suite: CanarySuite, provider: LiteLLMProvider, concurrency: int) -> tuple[float, int]:
    started = time.perf_counter()
    result = suite.run(provider, concurrency=concurrency, show_progress=False)
    elapsed = time.perf_counter() - started
    return elapsed, len(result.errors)


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    """``fn()`` and the CPU seconds the process spent in it (every thread)."""
    started = time.process_time()
    value = fn()
    return value, time.process_time() - started


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def speed(args: argparse.Namespace) -> None:
    suite = make_suite(args.prompts)
    load_before = load_average()
    with fake_server(latency=args.latency, in_process=args.in_process) as base_url:
        provider = LiteLLMProvider(args.model, api_base=base_url, api_key="sk-test")
        # Warm-up: imports LiteLLM and opens connections; not measured.
        make_suite(args.concurrency).run(
            provider, concurrency=args.concurrency, show_progress=False
        )
        asyncio.run(bare_gather(base_url, args.concurrency, args.concurrency, args.model))
        bare: list[float] = []
        ours: list[float] = []
        bare_cpu: list[float] = []
        ours_cpu: list[float] = []
        errors = 0
        for _ in range(args.repeat):  # interleaved, so drift of the machine hits both alike
            elapsed, cpu = timed(
                lambda: asyncio.run(
                    bare_gather(base_url, args.prompts, args.concurrency, args.model)
                )
            )
            bare.append(elapsed)
            bare_cpu.append(cpu)
            (elapsed, errs), cpu = timed(lambda: timed_run(suite, provider, args.concurrency))
            ours.append(elapsed)
            ours_cpu.append(cpu)
            errors += errs
    ideal = args.prompts / args.concurrency * args.latency
    per_request_ms = 1000 / args.prompts
    print(
        f"== speed: {args.prompts} prompts @ concurrency {args.concurrency}, "
        f"server latency {args.latency * 1000:.0f} ms, model {args.model}, "
        f"server {'in-process' if args.in_process else 'separate process'} =="
    )
    print(f"ideal (n / c x latency)        {ideal:6.2f} s")
    print(
        f"bare asyncio.gather(litellm)   best {min(bare):5.2f} s  "
        f"median {statistics.median(bare):5.2f} s  "
        f"CPU {statistics.median(bare_cpu) * per_request_ms:4.1f} ms/request"
    )
    print(
        f"CanarySuite.run                best {min(ours):5.2f} s  "
        f"median {statistics.median(ours):5.2f} s  "
        f"CPU {statistics.median(ours_cpu) * per_request_ms:4.1f} ms/request  (errors: {errors})"
    )
    print(
        f"ratio run / bare (median)      {statistics.median(ours) / statistics.median(bare):5.2f}"
    )
    cpu_ratio = statistics.median(ours_cpu) / statistics.median(bare_cpu)
    print(
        f"CPU ratio run / bare (median)  {cpu_ratio:5.2f}  "
        f"(target <= 0.6: {'met' if cpu_ratio <= 0.6 else 'MISSED'})"
    )
    print(f"peak RSS                       {peak_rss_mb():6.0f} MB")
    print(f"load average before / after    {load_before} / {load_average()}")


def rate_limited(args: argparse.Namespace) -> None:
    limit, n = 20.0, 100
    suite = make_suite(n)
    with fake_server(latency=args.latency, rate_limit=limit, in_process=args.in_process) as url:
        provider = LiteLLMProvider(args.model, api_base=url, api_key="sk-test")
        make_suite(1).run(provider, show_progress=False)  # warm-up: imports LiteLLM
        time.sleep(1.1)  # let the warm-up request leave the server's one-second window
        started = time.perf_counter()
        result = suite.run(provider, concurrency=args.concurrency, show_progress=False)
        elapsed = time.perf_counter() - started
    rate = n / elapsed
    print(
        f"== rate limit: {n} prompts @ concurrency {args.concurrency}, server limited to "
        f"{limit:.0f} req/s =="
    )
    print(f"wall time                      {elapsed:6.2f} s")
    print(f"errors                         {len(result.errors):6d}")
    print(f"retries (429s absorbed)        {result.usage.retries:6d}")
    print(f"achieved rate                  {rate:6.1f} req/s = {rate / limit:.0%} of the limit")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prompts", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--model", default=MODEL, help="model name sent (default: %(default)s)")
    parser.add_argument("--in-process", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-rate-limit", action="store_true")
    parser.add_argument("--skip-load", action="store_true")
    parser.add_argument("--load-requests", type=int, default=2000)
    parser.add_argument("--load-concurrency", type=int, default=64)
    parser.add_argument("--memory-requests", type=int, default=10000, help="0: skip")
    parser.add_argument(
        "--workers", type=int, default=2, help="also run with RunOptions(workers=N); 1: skip"
    )
    parser.add_argument(
        "--tls",
        action="store_true",
        help="load section at the provider's own endpoint (HTTPS, private CA, no api_base)",
    )
    parser.add_argument("--client", help=argparse.SUPPRESS)  # raw | bare | ours | workersN
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:  # one side of the load comparison, in its own process
        measured = load_client(
            args.client, args.url, args.load_requests, args.load_concurrency, args.model
        )
        print(json.dumps(measured))
        return
    if not args.skip_load:
        load(args)
    if not args.skip_speed:
        speed(args)
    if not args.skip_rate_limit:
        rate_limited(args)


if __name__ == "__main__":
    main()
