"""Visual Degrees on one machine: the CLI, the local ASL engine and WebSocket server, the simulated
photo web, the benchmarks and `doctor`.

None of this ships to AWS: the Lambda asset is the `visual_degrees` package alone, which this one
uses and never the other way round.
"""
