"""The knowledge base's machinery, in three rooms; an arrow is the only way an import may go:

    commands -> site -> proof        (commands may also import proof directly)

proof/     the proof engine: pinned environments, running a snippet on 4 replicas (child, fork
           server), the witness of each run, declared outcomes, the evidence file
site/      everything that turns evidence into pages, notebooks, PDFs, diagrams and the error index
commands/  the maintainers' commands (`tfdist envs|matrix|run|...`), the pytest plugin, benches

Nothing here imports anything heavy: `python -m tfdist_kb.proof.child` imports this file under
every environment's interpreter (Python 3.7 and later). tests/test_architecture.py holds the rules.
"""
