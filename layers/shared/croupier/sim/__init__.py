"""The deterministic simulation's parts: what AWS runs around the application, in one process,
on a virtual clock (:mod:`croupier.app.clock`), so that a run is repeated exactly from its seed.

- :mod:`croupier.sim.asl`: the round workflow (``statemachine/round.asl.json``), interpreted.
- :mod:`croupier.sim.queues`: SQS queues, standard and FIFO, with their delivery semantics.
- :mod:`croupier.sim.dynamo`: DynamoDB in memory, as the application reaches it through boto3's
  resource layer, with its stream; held to moto by a contract suite.
- :mod:`croupier.sim.streams`: a table's stream delivered to a function as Lambda's event source
  mapping delivers it.
"""
