"""Background work of the API: the job queue (embedded thread pool or Redis/rq) and report runs.

Jobs open their own units of work on the app's database; they never see a Flask request.
"""
