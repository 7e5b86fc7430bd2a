"""The administrator's pay-rules pages (blueprint `pay_rules`)."""
