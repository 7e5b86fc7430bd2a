"""The audit trail page (blueprint `audit`): what was written through the API, by whom, when."""
