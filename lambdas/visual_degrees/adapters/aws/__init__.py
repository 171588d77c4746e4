"""AWS adapters: DynamoDB run memory and connections, Step Functions executions, API Gateway pushes."""
