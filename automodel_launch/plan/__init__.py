"""The jobs one command makes of a recipe: one, or one per point of a sweep."""
