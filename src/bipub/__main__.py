from bipub.cli import main

main()
