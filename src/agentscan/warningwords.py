"""Words of a warning that more than one module must spell alike, kept where each can import
them: the module that words the warning and the sink that tells it by them import each other
only one way (``warningsink`` reads ``settling`` when it says a warning), so neither can hold
them for the other without an import cycle.
"""

#: how every warning reworded by its file's age begins (``settling.TRUNCATED_LAST_LINE`` and
#: ``TRUNCATED_SETTLED`` are built on it): the sink imports ``settling`` to say only a warning
#: so worded (``WarningSink.listed``), which a warm run's other warnings are said without
REWORDED_BY_AGE = "truncated last line"
#: how a legacy Gemini chat caught half rewritten is said while its file is young
#: (``settling.CUT_SHORT_FRESH``), reworded by its age too
CUT_SHORT = "chat file is cut short"
#: every head a warning reworded by its file's age begins with (``WarningSink.listed``)
REWORDED_HEADS = (REWORDED_BY_AGE, CUT_SHORT)
#: how a session a bug in agentscan cost is said (``context.internal_error``): listed past its
#: file's listed warnings too (``WarningSink.add``), never only counted in its "N more"
SKIPPED_SESSION = "skipped: agentscan could not read this session"
