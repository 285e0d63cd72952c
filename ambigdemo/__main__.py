import sys

from ambigdemo.cli import main

sys.exit(main())
