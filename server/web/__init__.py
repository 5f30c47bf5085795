"""The local web page (`memvault ui`): see what the assistant remembers, correct it, delete it.

    command.py    `memvault ui`: loopback only, prints the address with its login token
    security.py   sessions (the printed token, or a bearer token's tenant), Host/Origin/CSRF checks, headers
    app.py        the routes and the pages that read: threads, memories, search, a memory, a thread, health
    changes.py    the pages that change: edit, forget, restore, pin, remember, curation, prompts, files
    charts.py     the health page's charts, drawn as SVG on the server
    templates/, static/   Jinja2 pages and one stylesheet: every asset ships in the package (no CDN, no script)
"""
