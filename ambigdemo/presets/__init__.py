"""The presets: what each is made of (:mod:`.catalog`), building the embedded one from PyPI (:mod:`.artifacts`,
:mod:`.export`), fetching one from the hub (:mod:`.hub`), passage indexes (:mod:`.indexing`,
:mod:`.distributed`) and the models trained for them (:mod:`.train_retriever`, :mod:`.train_rewriter`)."""
