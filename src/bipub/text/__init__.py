"""Text helpers every stage may use (the lowest layer: imports nothing of bipub).

markdown.py  the Markdown dialect QA and the drafter read (one parser, so they agree on code)
site_urls.py a post's and a page's path (render/urls.py re-exports them)
"""
