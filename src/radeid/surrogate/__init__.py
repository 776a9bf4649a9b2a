"""Hide-in-plain-sight surrogates: realistic, consistent, keyed fakes for every PHI category.

from radeid.surrogate import SurrogateReplacer, SurrogateOptions
result = SurrogateReplacer(key).replace(document, spans)
"""

from radeid.sections import SurrogateOptions
from radeid.surrogate.engine import SurrogateReplacer

__all__ = ["SurrogateOptions", "SurrogateReplacer"]
