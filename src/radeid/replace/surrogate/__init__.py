"""Hide-in-plain-sight surrogates: realistic, consistent, keyed fakes for every PHI category.

from radeid.replace.surrogate import SurrogateReplacer, SurrogateOptions
result = SurrogateReplacer(key).replace(document, spans)
"""

from radeid.config.sections import SurrogateOptions
from radeid.replace.surrogate.engine import SurrogateReplacer

__all__ = ["SurrogateOptions", "SurrogateReplacer"]
