"""Tool layer (above the runner, below the interfaces).

Labelled synthetic training and evaluation data: `generate` (new documents) and `augment`
(re-rendering labelled documents with new surrogates).

    from radeid.synth import SynthOptions, generate
    docs = list(generate(100, SynthOptions(seed=1)))   # Document.spans = gold PHI
"""

from radeid.synth.generate import SynthOptions, generate, generate_one
from radeid.synth.kinds import KINDS

__all__ = ["KINDS", "SynthOptions", "generate", "generate_one"]
