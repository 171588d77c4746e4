"""The local ASL engine: runs statemachine/visual_degrees.asl.json in-process (states, Choice rules,
JSONPath, Retry and Catch, an execution history as Step Functions records one) and refuses any ASL
feature the definition does not use."""
