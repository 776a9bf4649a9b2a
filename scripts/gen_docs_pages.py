"""Write the generated reference pages into the documentation site (run by mkdocs-gen-files).

The pages are built from the code (`scripts/docs_reference.py`); a command without an example or a
configuration key without documentation stops the build with a message that says which.
"""

import sys
from pathlib import Path

import mkdocs_gen_files

sys.path.insert(0, str(Path(__file__).resolve().parent))

from docs_reference import cli_reference, config_reference  # noqa: E402

with mkdocs_gen_files.open("reference/cli.md", "w") as f:
    f.write(cli_reference())
mkdocs_gen_files.set_edit_path("reference/cli.md", "../docs/cli_examples.toml")

with mkdocs_gen_files.open("reference/config.md", "w") as f:
    f.write(config_reference())
