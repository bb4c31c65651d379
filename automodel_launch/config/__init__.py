"""Pydantic models of the recipe's launcher sections and the keys launching reads."""
