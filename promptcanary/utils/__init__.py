"""Helpers outside the run pipeline (promptcanary 0.2 kept its charts here: see visualization)."""
