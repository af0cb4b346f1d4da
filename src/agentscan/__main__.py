from agentscan.entry import main

main()
