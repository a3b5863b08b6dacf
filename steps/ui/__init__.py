"""The kit every step is built from: the page component and its state (`page`, `state`), the
step controller (`step`), controls (`controls`), words and blocks (`words`), frames on the wire
(`frames`), shared caches (`shared`), and the browser's code (`js/`, joined by `bundle`).
Nothing here knows about a particular step."""
