"""`visual-degrees serve`: the local WebSocket server and web page, speaking the deployed protocol
through the same use case (services/runs_api.py) over local adapters."""
