from agentscan.cli import main

main()
