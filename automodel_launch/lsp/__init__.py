"""The language server (``automodel-launch lsp``): validate's diagnostics in the editor.

Only :mod:`automodel_launch.lsp.server` speaks LSP (pygls); the other modules compute
answers from text: which documents are recipes, where a diagnostic sits, quick fixes,
hover and completion. Everything they say comes from the loader, the validator and the
field metadata the schema and ``docs/fields.md`` are generated from. Installed with the
``lsp`` extra; no other path of the package imports this room.
"""
