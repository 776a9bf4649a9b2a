"""Layer 2: the configuration: `Config`, one frozen dataclass per section, and the replacement modes' registry.

May import `radeid.core` only. `Config` reads the shipped defaults (`radeid/data/config.toml`), a
user's file over them and options over both, and refuses an unknown key or value at once.
"""

from radeid.config.config import DETECTOR_SECTIONS, Config, ConfigError, deep_merge, read_toml
from radeid.config.sections import (
    ENSEMBLE_STRATEGIES,
    GATE_SCOPES,
    EnsembleConfig,
    IOConfig,
    LexiconConfig,
    MaskConfig,
    PipelineConfig,
    ProtectedConfig,
    ReplaceConfig,
    ResolverConfig,
    RulesConfig,
    SurrogateOptions,
    TransformerConfig,
)

__all__ = [
    "DETECTOR_SECTIONS",
    "ENSEMBLE_STRATEGIES",
    "GATE_SCOPES",
    "Config",
    "ConfigError",
    "EnsembleConfig",
    "IOConfig",
    "LexiconConfig",
    "MaskConfig",
    "PipelineConfig",
    "ProtectedConfig",
    "ReplaceConfig",
    "ResolverConfig",
    "RulesConfig",
    "SurrogateOptions",
    "TransformerConfig",
    "deep_merge",
    "read_toml",
]
