"""Use cases of the `/v1` service: (session, contract input, actor) → ORM objects or answers.

Services never commit (the route's unit of work does) and raise `ProblemError` for every
refusal. Query building and ORM → contract conversion of an area live in its module.
"""
