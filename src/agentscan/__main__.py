try:
    from agentscan.entry import main
except KeyboardInterrupt:  # (Ctrl-C while this module's import ran: ``entry.interrupted``'s exit, quietly)
    import os

    os._exit(130)

main()
