import sys

from .cli.command_line import main

sys.exit(main())
