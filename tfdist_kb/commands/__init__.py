"""The maintainers' commands: `tfdist envs|matrix|run|bench|lock|errors|drift|gpu-check|new-entry`
(cli, found by tfdist through the `tfdist.commands` entry point), the pytest plugin, drift, the GPU
check, the benches (site, test budget), the entry scaffold, the serve port check.

May import: anything: the standard library, tfdist, proof and site. Nothing imports commands
(but tfdist.cli through its entry point, and pytest through pyproject's addopts).
"""
