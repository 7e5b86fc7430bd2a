"""Pure rules of the /v1 service: no Flask, no SQL, no clock (`now` is always a parameter)."""
