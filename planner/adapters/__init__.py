"""Adapters: where figures come from and where results go (files here; more later)."""
