"""Click commands kept in their own modules (registered at the end of bipub.cli).

Each module imports only click at import time; the work is imported inside the command so that
`bipub --help` stays fast.
"""
