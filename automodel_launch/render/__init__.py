"""Renderers: pure functions from a validated document to the artifact that runs it.

They know nothing of YAML files or the CLI: the inputs are the models and a
:class:`~automodel_launch.render.entry.JobSpec`, the output is text.
"""
