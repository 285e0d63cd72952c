"""ambigdemo: answers ambiguous open-domain questions the way AmbigQA and ASQA define the task."""

__version__ = "0.1.0"
