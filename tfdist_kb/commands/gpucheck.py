"""`make gpu-check`: every snippet on a machine with GPUs, as a table and as evidence of that machine.

The pinned environments run on 4 logical CPU devices. On a GPU machine the same snippets run on
4 physical GPUs (the first 4, where TensorFlow's default all-reduce uses NCCL), or on 1 GPU split
into 4 logical GPUs (where TensorFlow's own selection avoids NCCL): the runner (`replicas.plan`)
decides, and each record says which devices and which reduction (`witness.reduction`) it used.

The TensorFlow is the one of a GPU environment built from `tfdist_kb/proof/envs/gpu/NAME.txt` (the
pinned environment NAME with CUDA, `tensorflow[and-cuda]`), or any interpreter given with
`--python` (a machine's own TensorFlow). Expectations are those of the pinned environment it
mirrors (`--like`, by default the one of the same TensorFlow version and Keras package).
Records go to `snippets/gpu/MACHINE.json`, the environment named after the machine
(`gpu-4xNVIDIA-H100-80GB-HBM3`, ...), with the versions installed there.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..proof import envs, evidence, files, runner
from ..proof.envs import ROOT, Env

OUT = ROOT / "snippets" / "gpu"
GPU_PINS = envs.PINS / "gpu"
TIME_LIMIT = 180.0


class GpuCheckError(Exception):
    """The check cannot run here (no GPU, no such interpreter): one line, said by the CLI."""


@dataclass(frozen=True)
class GpuEnv(Env):
    """A GPU environment: its lock lives in tfdist_kb/proof/envs/gpu/, or it is a given interpreter."""
    given: str | None = field(default=None, compare=False)  # --python: use this interpreter as it is

    @property
    def lock(self) -> Path:
        return GPU_PINS / f"{self.name}.txt"

    @property
    def path(self) -> Path:
        # absolute, not resolved: a virtual environment's python is a link out of the environment
        return Path(self.given).absolute().parent.parent if self.given else envs.HOME / f"gpu-{self.name}"

    @property
    def interpreter(self) -> Path:
        return Path(self.given).absolute() if self.given else self.path / "bin" / "python"


def gpu_names() -> list[str]:
    """The machine's GPUs as the NVIDIA driver lists them (no TensorFlow needed): [] without one."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return []
    listed = subprocess.run([smi, "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True)
    return [line.strip() for line in listed.stdout.splitlines() if line.strip()] if listed.returncode == 0 else []


def machine_name(gpus: list[str]) -> str:
    """'gpu-4xNVIDIA-H200' for four H200s; distinct models are joined with '+'."""
    counts: dict[str, int] = {}
    for name in gpus:
        counts[name] = counts.get(name, 0) + 1
    return "gpu-" + "+".join(f"{n}x{re.sub(r'[^A-Za-z0-9.]+', '-', name).strip('-')}" for name, n in counts.items())


def probe(interpreter: Path, environ: dict) -> dict:
    """What the interpreter's TensorFlow sees: versions, GPUs, CUDA build. GpuCheckError if it cannot say."""
    code = ("import json, platform, tensorflow as tf; info = tf.sysconfig.get_build_info(); "
            "print(json.dumps({'tensorflow': tf.__version__, 'python': platform.python_version(), "
            "'gpus': len(tf.config.list_physical_devices('GPU')), "
            "'cuda': info.get('cuda_version'), 'cudnn': info.get('cudnn_version')}))")
    done = subprocess.run([str(interpreter), "-c", code], capture_output=True, text=True, env=environ, timeout=300)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise GpuCheckError(f"{interpreter} cannot import TensorFlow: {last[:200]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def mirrored(info: dict, like: str | None) -> Env:
    """The pinned environment whose expectations apply: `like`, or the one of the same TensorFlow."""
    if like:
        return envs.select(like)[0]
    for env in envs.load():
        if runner._versions(env)["tensorflow"] == info["tensorflow"] and not env.only:
            return env
    return envs.default()


def table(rows: list[dict]) -> str:
    """The printed table: snippet, outcome, seconds, replicas, devices, reduction, verdict."""
    head = ("snippet", "outcome", "seconds", "replicas", "devices", "reduction", "verdict")
    lines = [[r["snippet"].removeprefix("snippets/"), r.get("outcome") or "error",
              f"{r['seconds']:.1f}" if r.get("seconds") is not None else "-", str(r.get("replicas") or "-"),
              r.get("devices") or "-", r.get("reduction") or "-", r["verdict"]] for r in rows]
    widths = [max(len(h), *(len(line[i]) for line in lines)) if lines else len(h) for i, h in enumerate(head)]
    out = ["  ".join(h.ljust(w) for h, w in zip(head, widths))]
    out += ["  ".join(c.ljust(w) for c, w in zip(line, widths)) for line in lines]
    return "\n".join(out)


def check(env: Env, like: Env, name: str, workers: int, time_limit: float = TIME_LIMIT,
          pattern: str = "*", log=print) -> tuple[list[dict], float]:
    """Run every snippet (matching `pattern`) in `env` with the expectations of `like`: rows for the
    table (each a run record with its verdict), and the wall time."""
    files_ = [p for p in runner.snippet_files() if Path(f"{p.parent.name}/{p.name}").match(pattern)]
    if not files_:
        raise GpuCheckError(f"no snippet matches {pattern!r}")
    jobs = [replace(job, env=env) for job in runner.jobs([like], files_)]
    started = time.monotonic()

    def one(job: runner.Job) -> dict:
        if job.expectation.kind == "not-applicable":
            return dict(runner._base(job), outcome="not-applicable", reason=job.expectation.reason,
                        verdict="not applicable", seconds=None)
        try:
            limit = job.expectation.seconds if job.expectation.kind == "hangs" else time_limit
            record = runner._execute(job, limit, may_hang=job.expectation.kind == "hangs")
        except runner.RunnerError as error:
            return dict(runner._base(job), outcome=None, verdict=f"ERROR {str(error).splitlines()[0][:160]}",
                        seconds=None)
        problems = runner.judge(job, record)
        record["env"] = name
        record["verdict"] = "as expected" if not problems else "UNEXPECTED: " + "; ".join(problems)[:160]
        log(f"[gpu-check] {job.rel}: {record['outcome']} in {record['seconds']:.1f} s", flush=True)
        return record

    with ThreadPoolExecutor(max_workers=workers) as pool:
        rows = list(pool.map(one, jobs))
    return rows, time.monotonic() - started


def save(rows: list[dict], name: str, info: dict, like: Env, path: Path | None = None) -> Path:
    """The machine's records as evidence: public fields of every run, and what the machine was."""
    path = path or OUT / f"{name}.json"
    runs = [dict(evidence.public(r), env=name, verdict=r["verdict"]) for r in rows]
    files.write_atomic(path, json.dumps({"generated_by": "tfdist gpu-check (make gpu-check)", "env": name,
                                         "mirrors": like.name, "machine": info, "runs": runs},
                                        indent=1, ensure_ascii=False) + "\n")
    return path


def main(python: str | None, like_name: str | None, pattern: str, workers: int | None) -> int:
    gpus = gpu_names()
    if not gpus and not os.environ.get("TFDIST_GPU_CHECK_ON_CPU"):
        raise GpuCheckError("no GPU on this machine (nvidia-smi lists none): gpu-check runs on a machine with GPUs; "
                            "`make test` covers 4 logical CPU devices")
    if python:
        environ = envs.select(like_name)[0].environ if like_name else {}
        env: Env = GpuEnv(name="given", python="", about=f"TensorFlow of {python}", environ=environ, given=python)
        if not env.interpreter.exists():
            raise GpuCheckError(f"no such interpreter: {python}")
    else:
        like = envs.select(like_name or "default")[0]
        env = GpuEnv(name=like.name, python=like.python, about=f"{like.about}, with CUDA", environ=like.environ)
        if not env.lock.exists():
            raise GpuCheckError(f"no GPU lock file {env.lock.relative_to(ROOT)}; give an interpreter with "
                                f"GPU_PYTHON=/path/to/python")
        envs.ensure(env)
    info = probe(env.interpreter, env.process_environ())
    info["gpu_names"] = gpus
    if not info["gpus"] and not os.environ.get("TFDIST_GPU_CHECK_ON_CPU"):
        raise GpuCheckError(f"TensorFlow {info['tensorflow']} in {env.interpreter} sees no GPU "
                            f"(its CUDA build: {info.get('cuda') or 'none'}); nvidia-smi lists {len(gpus)}")
    like = mirrored(info, like_name)
    name = machine_name(gpus) if gpus else "cpu-only"
    chosen = min(4, os.cpu_count() or 1) if info["gpus"] < 4 else 1  # 4 real GPUs: one run at a time owns them
    print(f"[gpu-check] {name}: TensorFlow {info['tensorflow']} (CUDA {info.get('cuda')}, cuDNN "
          f"{info.get('cudnn')}), Python {info['python']}, {info['gpus']} GPU(s); expectations of {like.name}",
          flush=True)
    rows, wall = check(env, like, name, workers or chosen, pattern=pattern)
    print(table(rows))
    path = save(rows, name, info, like)
    bad = [r for r in rows if r["verdict"] not in ("as expected", "not applicable")]
    print(f"[gpu-check] {len(rows)} snippets in {wall:.0f} s; {len(bad)} unexpected; wrote {path.relative_to(ROOT)}")
    return 1 if bad else 0
