"""The /v1 wire contract: pydantic models of every resource and request body, and the error codes.

Imported by the API (`app.api`) and the client (`app.client`); imports nothing of ours but itself.
"""
