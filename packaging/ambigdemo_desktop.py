"""Entry point of the PyInstaller build: ``python app.py --desktop``, with ``models/`` and ``data/``
beside the executable (AMBIGDEMO_MODELS_DIR and AMBIGDEMO_DATA_DIR still override them)."""

import os
import sys
from pathlib import Path

HERE = Path(sys.executable).resolve().parent

if __name__ == "__main__":
    os.environ.setdefault("AMBIGDEMO_MODELS_DIR", str(HERE / "models"))
    os.environ.setdefault("AMBIGDEMO_DATA_DIR", str(HERE / "data"))
    from app import main

    sys.exit(main(["--desktop", *sys.argv[1:]]))
