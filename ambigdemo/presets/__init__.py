"""The presets as loading reads them, under the stages: what each is made of (:mod:`.catalog`), where the
embedded one lives and what completes it (:mod:`.artifacts`), fetching one from the hub (:mod:`.hub`),
and the two helpers a download shares with a build: embedding passages into an index (:mod:`.indexing`)
and announced steps with progress bars (:mod:`.steps`). Building and training: :mod:`ambigdemo.building`."""
