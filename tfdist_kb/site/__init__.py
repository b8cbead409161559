"""The site: everything that turns the evidence into pages (MkDocs hooks, macros, the page
audit), notebooks, diagrams, the offline build, PDFs and the error index (errors, registry), with
the theme overrides (theme/), the Node tools (js/) and jieba's extra terms.

May import: the standard library, the docs toolchain, tfdist (the user package), proof (to read
evidence and expectations), and other modules of site. Never commands.
"""
