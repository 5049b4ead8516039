from bipub.cli import run

run()
