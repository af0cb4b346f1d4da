"""Sessions and hook trees as OpenTelemetry traces (issue #10; docs/otel.md).

Modules, in the order data flows through them::

    sources.py          which sessions, and which source (transcript or hooks) each turn comes from
    timeline.py         a transcript's instants cut into turns, with inferred span times
    delegation.py       which parent tool call started which subagent (transcripts)
    from_transcript.py  ``show`` detail + per-call usage -> one trace per turn
    from_hooks.py       a hook tree (+ the transcript's LLM calls) -> one trace per turn
    builder.py          span names and attributes (the GenAI mapping), shared by both sources
    semconv.py          GenAI attribute names, provider names, usage and content rules
    spans.py            the span model and the deterministic ids
    resource.py         the resource (service.name = the agent) and the OTEL_* settings honoured
    encode_json.py      OTLP/JSON (no dependency); encode_proto.py: protobuf (optional extra)
    sender.py           OTLP/HTTP POST with retries and a bounded timeout (urllib only)
    endpoint.py         the endpoint URL and headers, checked before anything is sent
    export.py           `agentscan otlp`: build, then write the file or send
    live.py             `agentscan hook --otlp-endpoint`: the detached live sender
    livetail.py         what it reads: the events since a mark, not the whole file
    livequeue.py        its slots, and the queue a sender that found no slot leaves its job in
    livecounts.py       its outcomes counted in otlp-live.json (what doctor shows)

Nothing is imported here: ``agentscan hook`` imports ``live`` on its hot path.
"""
