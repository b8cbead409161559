"""The proof engine: the pinned environments (locks in envs/), running one snippet on 4 replicas
(child, replicas, witness; fresh or forked from a pre-imported TensorFlow: forkserver, forkpool),
the parallel cached runner, the local clusters of several tasks on loopback (cluster), declared
outcomes (expect), normalised messages and the evidence file.

May import: the standard library, tfdist (the user package), and other modules of proof. Never
site or commands. child, replicas, witness, cluster and forkserver run under every environment's interpreter
(Python 3.7 and later, next to TensorFlow): of the repository they import only each other and tfdist.
"""
