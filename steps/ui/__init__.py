"""The component kit every step is built from: templates (autoescaped), one stylesheet per
session, metric cards, notices, paragraphs, legends, the predict-then-reveal question and the
browser-side player stage. Nothing here knows about a particular step."""
