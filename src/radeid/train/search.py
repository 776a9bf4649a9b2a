"""Hyper-parameter search: optuna's Tree-structured Parzen Estimator with median pruning.

Each trial is a full `train` run in `OUTPUT/trials/trial-NNN` with sampled learning rate,
dropout, weight decay, epochs and PHI weight; it reports the validation F1 after every epoch and
the median pruner stops trials that fall below the median of earlier trials at the same epoch.
The study lives in `OUTPUT/search.db` (SQLite), so `--resume` continues it. The best trial's model
is copied to OUTPUT and its trial folders lose their checkpoints (only the models stay).
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from radeid.core.document import Document
from radeid.train.finetune import CHECKPOINT_DIR, TRAINING_FILE, TrainConfig, train

__all__ = ["SearchResult", "SearchSpace", "search"]

log = logging.getLogger(__name__)

SEARCH_FILE = "search.json"


@dataclass(frozen=True)
class SearchSpace:
    """Ranges searched; learning rate and weight decay on a log scale."""

    lr: tuple[float, float] = (1e-5, 3e-4)
    dropout: tuple[float, float] = (0.0, 0.3)
    weight_decay: tuple[float, float] = (1e-4, 0.1)
    epochs: tuple[int, int] = (2, 6)
    phi_weight: tuple[float, float] = (1.0, 6.0)


@dataclass
class SearchResult:
    """The best trial and a summary of all of them."""

    best_params: dict[str, Any]
    best_f1: float
    trials: list[dict[str, Any]]


def search(
    config: TrainConfig,
    train_docs: Sequence[Document],
    val_docs: Sequence[Document] | None,
    n_trials: int,
    *,
    space: SearchSpace | None = None,
    resume: bool = False,
) -> SearchResult:
    """Run `n_trials` trials (fewer if resuming a study that already has some) and keep the best model."""
    import optuna

    space = space or SearchSpace()
    output = Path(config.output)
    output.mkdir(parents=True, exist_ok=True)
    storage = f"sqlite:///{(output / 'search.db').resolve()}"
    if not resume and (output / "search.db").exists():
        raise FileExistsError(f"{output} already holds a search (search.db): pass --resume or another output")
    study = optuna.create_study(
        study_name="radeid-train",
        storage=storage,
        load_if_exists=resume,
        direction="maximize",
        sampler=optuna.samplers.TPESampler(seed=config.seed),
        pruner=optuna.pruners.MedianPruner(n_startup_trials=2, n_warmup_steps=1),
    )

    objective = _objective(config, train_docs, val_docs, space, output)
    remaining = n_trials - len([t for t in study.trials if t.state.is_finished()])
    if remaining > 0:
        study.optimize(objective, n_trials=remaining, catch=())
    complete = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    if not complete:
        raise RuntimeError("no trial completed")
    best = study.best_trial
    trials = _keep_best(study, best, output)
    return SearchResult(best_params=dict(best.params), best_f1=float(best.value or 0.0), trials=trials)


def _objective(
    config: TrainConfig,
    train_docs: Sequence[Document],
    val_docs: Sequence[Document] | None,
    space: SearchSpace,
    output: Path,
) -> Callable[[Any], float]:
    """Optuna's objective: one training run with the trial's parameters, pruned on poor epochs; its best F1."""
    import optuna

    def objective(trial: Any) -> float:
        params = {
            "lr": trial.suggest_float("lr", *space.lr, log=True),
            "dropout": trial.suggest_float("dropout", *space.dropout),
            "weight_decay": trial.suggest_float("weight_decay", *space.weight_decay, log=True),
            "epochs": trial.suggest_int("epochs", *space.epochs),
            "phi_weight": trial.suggest_float("phi_weight", *space.phi_weight),
        }
        folder = output / "trials" / f"trial-{trial.number:03d}"
        trial_config = replace(config, output=str(folder), **params)

        def report(epoch: int, scores: dict[str, float]) -> None:
            trial.report(scores.get("f1", 0.0), epoch)
            if trial.should_prune():
                raise optuna.TrialPruned()

        try:
            result = train(trial_config, train_docs, val_docs, on_epoch=report)
        finally:
            shutil.rmtree(folder / CHECKPOINT_DIR, ignore_errors=True)
        return result.best_f1

    return objective


def _keep_best(study: Any, best: Any, output: Path) -> list[dict[str, Any]]:
    """Copy the best trial's model files into `output` and write search.json; every trial's summary."""
    best_folder = output / "trials" / f"trial-{best.number:03d}"
    for item in best_folder.iterdir():
        if item.is_file():
            shutil.copyfile(item, output / item.name)
    trials = [
        {"number": t.number, "state": t.state.name, "value": t.value, "params": t.params,
         "epochs_reported": len(t.intermediate_values)}
        for t in study.trials
    ]  # fmt: skip
    summary = {"best_trial": best.number, "best_f1": best.value, "best_params": best.params, "trials": trials}
    (output / SEARCH_FILE).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    if not (output / TRAINING_FILE).exists():  # pragma: no cover - the best trial always writes one
        log.warning("best trial wrote no %s", TRAINING_FILE)
    return trials
