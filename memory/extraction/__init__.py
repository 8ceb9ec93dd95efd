"""Knowledge from text, without Django: the rules extractor (entities, dates, quantities and
facts from what people state) and the types every extractor answers with.

``rules.extract(text, speaker=..., occurred_at=...)`` reads one episode; an LLM extractor
(the tenant's provider) answers with the same ``Extraction``. What to *do* with it — resolve
entities, supersede facts, keep evidence — is ``memory.services.knowledge``.
"""
