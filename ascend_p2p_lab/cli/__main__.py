"""``python -m ascend_p2p_lab.cli``: the ``ascend-p2p-lab`` command."""

import sys

from . import main

sys.exit(main())
