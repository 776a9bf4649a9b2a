"""Tool layer (above the runner, below the interfaces).

Fine-tuning token-classification models for PHI (`radeid train`, extra `radeid[train]`).

Modules: `data` (gold documents -> word-piece windows with BIO labels and word shapes, stratified
validation split, token F1; no torch), `schedule` (slanted triangular learning rates, momentum
cycling, discriminative rates per layer; no torch), `model` (encoder + word-shape embedding +
linear head), `settings` (what defines a run and what it reached; no torch), `optim` (parameter
groups by depth, weight decay, class weights), `model_folder` (the tokenizer and window limit
saved next to the weights), `finetune` (the training loop with checkpoints and early stopping),
`search` (optuna TPE search) and `commands` (the CLI). torch, transformers and optuna are
imported only inside `model`, `optim`, `finetune` and `search`, so importing this package stays
cheap.
"""
