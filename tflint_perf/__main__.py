import sys

from tflint_perf.cli import main

sys.exit(main())
